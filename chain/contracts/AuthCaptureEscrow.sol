// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice What the escrow asks of a token collector (AuthCaptureCollectors.sol): its kind, and to move `amount` of
/// the payment's token into the operator's token store.
interface IAuthCaptureTokenCollector {
    function collectorType() external view returns (uint8);
    function collectTokens(
        AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata collectorData
    ) external;
}

interface IERC20AuthCapture {
    function balanceOf(address account) external view returns (uint256);
}

/// @notice base/commerce-payments' AuthCaptureEscrow (the v1.1 deployment x402's `auth-capture` scheme collects into)
/// for the svc sandbox chain, written from its interface and the scheme's EVM binding: the same `PaymentInfo`, its
/// EIP-712 type hash and `getHash`, the `paymentState` mapping (slot 0, one packed word per payment), the operations
/// and their rules (only `paymentInfo.operator` authorizes, charges, captures, voids and refunds; only the payer
/// reclaims, after the authorization expiry; `preApprovalExpiry <= authorizationExpiry <= refundExpiry`; an absolute
/// `feeAmount` within `amount * [minFeeBps, maxFeeBps] / 10000`), the same events and custom errors.
/// Funds are held per operator in a token store: a minimal proxy (EIP-1167) of the TokenStore implementation, created
/// with CREATE2 (salt: the operator's address) the first time tokens leave it, so `getTokenStore` answers the address
/// the real escrow does.
/// Like the real escrow, its constructor creates the TokenStore implementation (its first CREATE) and keeps its address
/// as an immutable. The kit does not run the constructor: it installs the runtime code (anvil_setCode) with the
/// immutable written in (solc's `immutableReferences`, kept in the generated artifact), and the TokenStore
/// implementation, bound to this escrow, at the address that CREATE would give; so one compiled escrow serves every
/// address it is installed at (chain/auth-capture/contracts.ts).
contract AuthCaptureEscrow {
    struct PaymentInfo {
        address operator;
        address payer;
        address receiver;
        address token;
        uint120 maxAmount;
        uint48 preApprovalExpiry;
        uint48 authorizationExpiry;
        uint48 refundExpiry;
        uint16 minFeeBps;
        uint16 maxFeeBps;
        address feeReceiver;
        uint256 salt;
    }

    struct PaymentState {
        bool hasCollectedPayment;
        uint120 capturableAmount;
        uint120 refundableAmount;
    }

    bytes32 public constant PAYMENT_INFO_TYPEHASH = keccak256(
        "PaymentInfo(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)"
    );

    /// @notice The TokenStore implementation every operator's store points to (the escrow's nonce-1 CREATE address).
    address public immutable tokenStoreImplementation;

    uint16 private constant _MAX_FEE_BPS = 10_000;
    uint8 private constant _PAYMENT_COLLECTOR = 0;
    uint8 private constant _REFUND_COLLECTOR = 1;

    mapping(bytes32 paymentInfoHash => PaymentState state) public paymentState;

    bool private transient _entered;

    constructor() {
        tokenStoreImplementation = address(new TokenStore(address(this)));
    }

    event PaymentCharged(
        bytes32 indexed paymentInfoHash,
        PaymentInfo paymentInfo,
        uint256 amount,
        address tokenCollector,
        uint256 feeAmount,
        address feeReceiver
    );
    event PaymentAuthorized(
        bytes32 indexed paymentInfoHash, PaymentInfo paymentInfo, uint256 amount, address tokenCollector
    );
    event PaymentCaptured(bytes32 indexed paymentInfoHash, uint256 amount, uint256 feeAmount, address feeReceiver);
    event PaymentVoided(bytes32 indexed paymentInfoHash, uint256 amount);
    event PaymentReclaimed(bytes32 indexed paymentInfoHash, uint256 amount);
    event PaymentRefunded(bytes32 indexed paymentInfoHash, uint256 amount, address tokenCollector);
    event TokenStoreCreated(address indexed operator, address tokenStore);

    error InvalidSender(address sender, address expected);
    error ZeroAmount();
    error AmountOverflow(uint256 amount, uint256 limit);
    error ExceedsMaxAmount(uint256 amount, uint256 maxAmount);
    error AfterPreApprovalExpiry(uint48 timestamp, uint48 expiry);
    error InvalidExpiries(uint48 preApproval, uint48 authorization, uint48 refund);
    error FeeBpsOverflow(uint16 feeBps);
    error InvalidFeeBpsRange(uint16 minFeeBps, uint16 maxFeeBps);
    error FeeAmountOutOfRange(uint256 feeAmount, uint256 minFeeAmount, uint256 maxFeeAmount);
    error ZeroFeeReceiver();
    error InvalidFeeReceiver(address attempted, address expected);
    error InvalidCollectorForOperation();
    error TokenCollectionFailed();
    error PaymentAlreadyCollected(bytes32 paymentInfoHash);
    error AfterAuthorizationExpiry(uint48 timestamp, uint48 expiry);
    error InsufficientAuthorization(bytes32 paymentInfoHash, uint256 authorizedAmount, uint256 requestedAmount);
    error ZeroAuthorization(bytes32 paymentInfoHash);
    error BeforeAuthorizationExpiry(uint48 timestamp, uint48 expiry);
    error AfterRefundExpiry(uint48 timestamp, uint48 expiry);
    error RefundExceedsCapture(uint256 refund, uint256 captured);
    /// @dev Solady's ReentrancyGuard error, which the real escrow reverts with.
    error Reentrancy();
    error TokenStoreCreationFailed();

    modifier nonReentrant() {
        if (_entered) revert Reentrancy();
        _entered = true;
        _;
        _entered = false;
    }

    modifier onlySender(address sender) {
        if (msg.sender != sender) revert InvalidSender(msg.sender, sender);
        _;
    }

    modifier validAmount(uint256 amount) {
        if (amount == 0) revert ZeroAmount();
        if (amount > type(uint120).max) revert AmountOverflow(amount, type(uint120).max);
        _;
    }

    // --- collect ---------------------------------------------------------------------------------------------------

    /// @notice Collects `amount` (at most `maxAmount`) from the payer and pays it out at once: a terminal payment,
    /// refundable until `refundExpiry`.
    function charge(
        PaymentInfo calldata paymentInfo,
        uint256 amount,
        address tokenCollector,
        bytes calldata collectorData,
        uint256 feeAmount,
        address feeReceiver
    ) external nonReentrant onlySender(paymentInfo.operator) validAmount(amount) {
        _validatePayment(paymentInfo, amount);
        _validateFee(paymentInfo, amount, feeAmount, feeReceiver);
        bytes32 paymentInfoHash = _collectOnce(paymentInfo);
        paymentState[paymentInfoHash] =
            PaymentState({hasCollectedPayment: true, capturableAmount: 0, refundableAmount: uint120(amount)});
        emit PaymentCharged(paymentInfoHash, paymentInfo, amount, tokenCollector, feeAmount, feeReceiver);
        _collectTokens(paymentInfo, amount, tokenCollector, collectorData, _PAYMENT_COLLECTOR);
        _distributeTokens(paymentInfo.token, paymentInfo.receiver, amount, feeAmount, feeReceiver);
    }

    /// @notice Collects `amount` from the payer into the operator's token store, capturable until
    /// `authorizationExpiry`.
    function authorize(
        PaymentInfo calldata paymentInfo,
        uint256 amount,
        address tokenCollector,
        bytes calldata collectorData
    ) external nonReentrant onlySender(paymentInfo.operator) validAmount(amount) {
        _validatePayment(paymentInfo, amount);
        bytes32 paymentInfoHash = _collectOnce(paymentInfo);
        paymentState[paymentInfoHash] =
            PaymentState({hasCollectedPayment: true, capturableAmount: uint120(amount), refundableAmount: 0});
        emit PaymentAuthorized(paymentInfoHash, paymentInfo, amount, tokenCollector);
        _collectTokens(paymentInfo, amount, tokenCollector, collectorData, _PAYMENT_COLLECTOR);
    }

    // --- lifecycle -------------------------------------------------------------------------------------------------

    /// @notice Pays `amount` of what is held to the receiver (less `feeAmount` to `feeReceiver`); may repeat up to
    /// what was authorized, before `authorizationExpiry`.
    function capture(PaymentInfo calldata paymentInfo, uint256 amount, uint256 feeAmount, address feeReceiver)
        external
        nonReentrant
        onlySender(paymentInfo.operator)
        validAmount(amount)
    {
        _validateFee(paymentInfo, amount, feeAmount, feeReceiver);
        if (block.timestamp >= paymentInfo.authorizationExpiry) {
            revert AfterAuthorizationExpiry(uint48(block.timestamp), paymentInfo.authorizationExpiry);
        }
        bytes32 paymentInfoHash = getHash(paymentInfo);
        PaymentState memory state = paymentState[paymentInfoHash];
        if (state.capturableAmount < amount) {
            revert InsufficientAuthorization(paymentInfoHash, state.capturableAmount, amount);
        }
        state.capturableAmount -= uint120(amount);
        state.refundableAmount += uint120(amount);
        paymentState[paymentInfoHash] = state;
        emit PaymentCaptured(paymentInfoHash, amount, feeAmount, feeReceiver);
        _distributeTokens(paymentInfo.token, paymentInfo.receiver, amount, feeAmount, feeReceiver);
    }

    /// @notice Returns everything still held to the payer; the authorization ends.
    function void(PaymentInfo calldata paymentInfo) external nonReentrant onlySender(paymentInfo.operator) {
        (bytes32 paymentInfoHash, uint256 held) = _release(paymentInfo);
        emit PaymentVoided(paymentInfoHash, held);
        _sendTokens(paymentInfo.operator, paymentInfo.token, paymentInfo.payer, held);
    }

    /// @notice The payer takes back everything still held, once `authorizationExpiry` has passed.
    function reclaim(PaymentInfo calldata paymentInfo) external nonReentrant onlySender(paymentInfo.payer) {
        if (block.timestamp < paymentInfo.authorizationExpiry) {
            revert BeforeAuthorizationExpiry(uint48(block.timestamp), paymentInfo.authorizationExpiry);
        }
        (bytes32 paymentInfoHash, uint256 held) = _release(paymentInfo);
        emit PaymentReclaimed(paymentInfoHash, held);
        _sendTokens(paymentInfo.operator, paymentInfo.token, paymentInfo.payer, held);
    }

    /// @notice Gives `amount` of what was captured back to the payer before `refundExpiry`; the tokens come through a
    /// refund collector (the operator refund collector: from the operator).
    function refund(
        PaymentInfo calldata paymentInfo,
        uint256 amount,
        address tokenCollector,
        bytes calldata collectorData
    ) external nonReentrant onlySender(paymentInfo.operator) validAmount(amount) {
        if (block.timestamp >= paymentInfo.refundExpiry) {
            revert AfterRefundExpiry(uint48(block.timestamp), paymentInfo.refundExpiry);
        }
        bytes32 paymentInfoHash = getHash(paymentInfo);
        uint120 captured = paymentState[paymentInfoHash].refundableAmount;
        if (captured < amount) revert RefundExceedsCapture(amount, captured);
        paymentState[paymentInfoHash].refundableAmount = captured - uint120(amount);
        emit PaymentRefunded(paymentInfoHash, amount, tokenCollector);
        _collectTokens(paymentInfo, amount, tokenCollector, collectorData, _REFUND_COLLECTOR);
        _sendTokens(paymentInfo.operator, paymentInfo.token, paymentInfo.payer, amount);
    }

    // --- views -----------------------------------------------------------------------------------------------------

    /// @notice The payment's identity on this chain and escrow: keys `paymentState`.
    function getHash(PaymentInfo calldata paymentInfo) public view returns (bytes32) {
        bytes32 structHash = keccak256(abi.encode(PAYMENT_INFO_TYPEHASH, paymentInfo));
        return keccak256(abi.encode(block.chainid, address(this), structHash));
    }

    /// @notice Where an operator's funds are held (whether or not the store exists yet).
    function getTokenStore(address operator) public view returns (address) {
        bytes32 hash = keccak256(
            abi.encodePacked(bytes1(0xff), address(this), bytes32(bytes20(operator)), keccak256(_storeInitCode()))
        );
        return address(uint160(uint256(hash)));
    }

    // --- internals -------------------------------------------------------------------------------------------------

    function _collectOnce(PaymentInfo calldata paymentInfo) private view returns (bytes32 paymentInfoHash) {
        paymentInfoHash = getHash(paymentInfo);
        if (paymentState[paymentInfoHash].hasCollectedPayment) revert PaymentAlreadyCollected(paymentInfoHash);
    }

    function _release(PaymentInfo calldata paymentInfo) private returns (bytes32 paymentInfoHash, uint256 held) {
        paymentInfoHash = getHash(paymentInfo);
        held = paymentState[paymentInfoHash].capturableAmount;
        if (held == 0) revert ZeroAuthorization(paymentInfoHash);
        paymentState[paymentInfoHash].capturableAmount = 0;
    }

    /// @dev Has the collector move exactly `amount` into the operator's store (measured, not trusted).
    function _collectTokens(
        PaymentInfo calldata paymentInfo,
        uint256 amount,
        address tokenCollector,
        bytes calldata collectorData,
        uint8 collectorType
    ) private {
        if (IAuthCaptureTokenCollector(tokenCollector).collectorType() != collectorType) {
            revert InvalidCollectorForOperation();
        }
        address store = getTokenStore(paymentInfo.operator);
        uint256 before = IERC20AuthCapture(paymentInfo.token).balanceOf(store);
        IAuthCaptureTokenCollector(tokenCollector).collectTokens(paymentInfo, store, amount, collectorData);
        if (IERC20AuthCapture(paymentInfo.token).balanceOf(store) != before + amount) revert TokenCollectionFailed();
    }

    /// @dev Pays out of the operator's store, creating the store on its first payout.
    function _sendTokens(address operator, address token, address recipient, uint256 amount) private {
        address store = getTokenStore(operator);
        if (store.code.length == 0) {
            bytes memory initCode = _storeInitCode();
            address created;
            bytes32 salt = bytes32(bytes20(operator));
            assembly ("memory-safe") {
                created := create2(0, add(initCode, 0x20), mload(initCode), salt)
            }
            if (created != store) revert TokenStoreCreationFailed();
            emit TokenStoreCreated(operator, store);
        }
        TokenStore(store).sendTokens(token, recipient, amount);
    }

    function _distributeTokens(address token, address receiver, uint256 amount, uint256 feeAmount, address feeReceiver)
        private
    {
        if (feeAmount > 0) _sendTokens(msg.sender, token, feeReceiver, feeAmount);
        if (amount > feeAmount) _sendTokens(msg.sender, token, receiver, amount - feeAmount);
    }

    function _validatePayment(PaymentInfo calldata paymentInfo, uint256 amount) private view {
        uint48 preApproval = paymentInfo.preApprovalExpiry;
        uint48 authorization = paymentInfo.authorizationExpiry;
        uint48 refundBy = paymentInfo.refundExpiry;
        if (amount > paymentInfo.maxAmount) revert ExceedsMaxAmount(amount, paymentInfo.maxAmount);
        if (block.timestamp >= preApproval) revert AfterPreApprovalExpiry(uint48(block.timestamp), preApproval);
        if (preApproval > authorization || authorization > refundBy) {
            revert InvalidExpiries(preApproval, authorization, refundBy);
        }
        if (paymentInfo.maxFeeBps > _MAX_FEE_BPS) revert FeeBpsOverflow(paymentInfo.maxFeeBps);
        if (paymentInfo.minFeeBps > paymentInfo.maxFeeBps) {
            revert InvalidFeeBpsRange(paymentInfo.minFeeBps, paymentInfo.maxFeeBps);
        }
    }

    /// @dev v1.1's fee rule: the submitted absolute fee lies within the bounds the signed basis points give this
    /// `amount` (integer division), goes to a non-zero address when non-zero, and to the signed fee receiver if one
    /// was signed (even a zero fee must name it).
    function _validateFee(PaymentInfo calldata paymentInfo, uint256 amount, uint256 feeAmount, address feeReceiver)
        private
        pure
    {
        uint256 minFee = amount * paymentInfo.minFeeBps / _MAX_FEE_BPS;
        uint256 maxFee = amount * paymentInfo.maxFeeBps / _MAX_FEE_BPS;
        if (feeAmount < minFee || feeAmount > maxFee) revert FeeAmountOutOfRange(feeAmount, minFee, maxFee);
        if (feeReceiver == address(0) && feeAmount > 0) revert ZeroFeeReceiver();
        address signed = paymentInfo.feeReceiver;
        if (signed != address(0) && signed != feeReceiver) revert InvalidFeeReceiver(feeReceiver, signed);
    }

    /// @dev EIP-1167's creation code for a minimal proxy of the TokenStore implementation.
    function _storeInitCode() private view returns (bytes memory) {
        return abi.encodePacked(
            hex"3d602d80600a3d3981f3363d3d373d3d3d363d73", tokenStoreImplementation, hex"5af43d82803e903d91602b57fd5bf3"
        );
    }
}

/// @notice Holds one operator's escrowed tokens; only the escrow moves them. Operators' stores are minimal proxies of
/// this implementation (see AuthCaptureEscrow), so the escrow's address is an immutable of the implementation's code.
contract TokenStore {
    address public immutable authCaptureEscrow;

    error OnlyAuthCaptureEscrow();
    /// @dev OpenZeppelin SafeERC20's error, which the real store reverts with.
    error SafeERC20FailedOperation(address token);

    constructor(address authCaptureEscrow_) {
        authCaptureEscrow = authCaptureEscrow_;
    }

    function sendTokens(address token, address recipient, uint256 amount) external returns (bool) {
        if (msg.sender != authCaptureEscrow) revert OnlyAuthCaptureEscrow();
        (bool ok, bytes memory data) = token.call(abi.encodeWithSelector(0xa9059cbb, recipient, amount));
        if (!ok || (data.length > 0 && !abi.decode(data, (bool))) || (data.length == 0 && token.code.length == 0)) {
            revert SafeERC20FailedOperation(token);
        }
        return true;
    }
}
