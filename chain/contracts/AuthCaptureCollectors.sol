// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {AuthCaptureEscrow} from "./AuthCaptureEscrow.sol";
import {Permit2} from "./Permit2.sol";

interface IERC3009AuthCapture {
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;
}

interface IMulticall3AuthCapture {
    struct Call {
        address target;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    function tryAggregate(bool requireSuccess, Call[] calldata calls) external payable returns (Result[] memory);
}

/// @notice What base/commerce-payments' token collectors share, for the svc sandbox chain: only the escrow (an
/// immutable, as in the real collectors; the kit installs the runtime code with it written in, so each installed set
/// of collectors is bound to its own escrow) may ask a collector to move tokens into an operator's token store; a
/// collector says whether it serves payments (0) or refunds (1).
abstract contract AuthCaptureTokenCollector {
    address public immutable authCaptureEscrow;

    error OnlyAuthCaptureEscrow();
    /// @dev OpenZeppelin SafeERC20's error, which the real collectors revert with.
    error SafeERC20FailedOperation(address token);

    constructor(address authCaptureEscrow_) {
        authCaptureEscrow = authCaptureEscrow_;
    }

    function collectorType() external view virtual returns (uint8);

    function collectTokens(
        AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata collectorData
    ) external {
        if (msg.sender != authCaptureEscrow) revert OnlyAuthCaptureEscrow();
        _collectTokens(paymentInfo, tokenStore, amount, collectorData);
    }

    function _collectTokens(
        AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata collectorData
    ) internal virtual;

    /// @dev The payment's hash with the payer zeroed: the nonce the payer's token authorization carries (x402's
    /// `signatureNonce`), so one signature can only ever fund this one payment.
    function _payerAgnosticHash(AuthCaptureEscrow.PaymentInfo calldata paymentInfo) internal view returns (bytes32) {
        AuthCaptureEscrow.PaymentInfo memory agnostic = paymentInfo;
        agnostic.payer = address(0);
        return AuthCaptureEscrow(authCaptureEscrow).getHash(agnostic);
    }

    function _safeTransfer(address token, address to, uint256 amount) internal {
        (bool ok, bytes memory data) = token.call(abi.encodeWithSelector(0xa9059cbb, to, amount));
        _checkTransfer(token, ok, data);
    }

    function _safeTransferFrom(address token, address from, address to, uint256 amount) internal {
        (bool ok, bytes memory data) = token.call(abi.encodeWithSelector(0x23b872dd, from, to, amount));
        _checkTransfer(token, ok, data);
    }

    function _checkTransfer(address token, bool ok, bytes memory data) private view {
        if (!ok || (data.length > 0 && !abi.decode(data, (bool))) || (data.length == 0 && token.code.length == 0)) {
            revert SafeERC20FailedOperation(token);
        }
    }
}

/// @notice The payer's signature as a payment collector takes it: a plain (ECDSA or ERC-1271) signature, or an
/// ERC-6492 envelope for a wallet not deployed yet, whose preparation call (the wallet's deployment) is made through
/// Multicall3, a neutral sender, before the inner signature is handed on.
abstract contract AuthCaptureSignatureHandler {
    address public constant multicall3 = 0xcA11bde05977b3631167028862bE2a173976CA11;

    bytes32 private constant _ERC6492_MAGIC = 0x6492649264926492649264926492649264926492649264926492649264926492;

    function _prepareSignature(bytes calldata signature) internal returns (bytes memory) {
        uint256 length = signature.length;
        if (length < 32 || bytes32(signature[length - 32:]) != _ERC6492_MAGIC) return signature;
        (address target, bytes memory callData, bytes memory inner) =
            abi.decode(signature[:length - 32], (address, bytes, bytes));
        IMulticall3AuthCapture.Call[] memory calls = new IMulticall3AuthCapture.Call[](1);
        calls[0] = IMulticall3AuthCapture.Call(target, callData);
        IMulticall3AuthCapture(multicall3).tryAggregate(false, calls);
        return inner;
    }
}

/// @notice Collects a payment with the payer's ERC-3009 `ReceiveWithAuthorization` (payee: this collector; value:
/// `maxAmount`; valid from 0 until `preApprovalExpiry`; nonce: the payer-agnostic payment hash), returns what exceeds
/// `amount` to the payer and puts `amount` in the operator's token store. `collectorData` is the signature.
contract ERC3009PaymentCollector is AuthCaptureTokenCollector, AuthCaptureSignatureHandler {
    constructor(address authCaptureEscrow_) AuthCaptureTokenCollector(authCaptureEscrow_) {}

    function collectorType() external pure override returns (uint8) {
        return 0;
    }

    function _collectTokens(
        AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata collectorData
    ) internal override {
        address token = paymentInfo.token;
        uint256 maxAmount = paymentInfo.maxAmount;
        IERC3009AuthCapture(token).receiveWithAuthorization(
            paymentInfo.payer,
            address(this),
            maxAmount,
            0,
            paymentInfo.preApprovalExpiry,
            _payerAgnosticHash(paymentInfo),
            _prepareSignature(collectorData)
        );
        if (maxAmount > amount) _safeTransfer(token, paymentInfo.payer, maxAmount - amount);
        _safeTransfer(token, tokenStore, amount);
    }
}

/// @notice Collects a payment with the payer's Permit2 `PermitTransferFrom` (spender: this collector; permitted:
/// `maxAmount` of the token; nonce: the payer-agnostic payment hash as a uint256; deadline: `preApprovalExpiry`),
/// transferring `amount` straight to the operator's token store. `collectorData` is the signature.
contract Permit2PaymentCollector is AuthCaptureTokenCollector, AuthCaptureSignatureHandler {
    Permit2 public constant permit2 = Permit2(0x000000000022D473030F116dDEE9F6B43aC78BA3);

    constructor(address authCaptureEscrow_) AuthCaptureTokenCollector(authCaptureEscrow_) {}

    function collectorType() external pure override returns (uint8) {
        return 0;
    }

    function _collectTokens(
        AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata collectorData
    ) internal override {
        permit2.permitTransferFrom(
            Permit2.PermitTransferFrom({
                permitted: Permit2.TokenPermissions({token: paymentInfo.token, amount: paymentInfo.maxAmount}),
                nonce: uint256(_payerAgnosticHash(paymentInfo)),
                deadline: paymentInfo.preApprovalExpiry
            }),
            Permit2.SignatureTransferDetails({to: tokenStore, requestedAmount: amount}),
            paymentInfo.payer,
            _prepareSignature(collectorData)
        );
    }
}

/// @notice Collects a refund from the payment's operator (which must have approved this collector for the token).
contract OperatorRefundCollector is AuthCaptureTokenCollector {
    constructor(address authCaptureEscrow_) AuthCaptureTokenCollector(authCaptureEscrow_) {}

    function collectorType() external pure override returns (uint8) {
        return 1;
    }

    function _collectTokens(
        AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata
    ) internal override {
        _safeTransferFrom(paymentInfo.token, paymentInfo.operator, tokenStore, amount);
    }
}
