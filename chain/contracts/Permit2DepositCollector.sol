// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {DepositCollectorBase} from "./DepositCollectorBase.sol";
import {Permit2} from "./Permit2.sol";

interface IERC20PermitForDeposit {
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external;
}

/// @notice x402's Permit2 deposit collector for the svc sandbox chain: the collector is the Permit2 spender, and the
/// witness `DepositWitness(bytes32 channelId)` binds the transfer to the channel; the tokens go straight to the
/// batch-settlement contract. An optional EIP-2612 permit (the `eip2612GasSponsoring` extension) approves Permit2 first.
/// `collectorData` is `abi.encode(uint256 nonce, uint256 deadline, bytes permit2Signature, bytes eip2612PermitData)`,
/// the last either empty or `abi.encode(uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)`.
contract Permit2DepositCollector is DepositCollectorBase {
    Permit2 public constant PERMIT2 = Permit2(0x000000000022D473030F116dDEE9F6B43aC78BA3);

    string public constant WITNESS_TYPE_STRING =
        "DepositWitness witness)DepositWitness(bytes32 channelId)TokenPermissions(address token,uint256 amount)";
    bytes32 public constant DEPOSIT_WITNESS_TYPEHASH = keccak256("DepositWitness(bytes32 channelId)");

    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData)
        external
        onlySettlement
    {
        (uint256 nonce, uint256 deadline, bytes memory signature, bytes memory permitData) =
            abi.decode(collectorData, (uint256, uint256, bytes, bytes));
        if (permitData.length > 0) _permit(token, payer, permitData);
        PERMIT2.permitWitnessTransferFrom(
            Permit2.PermitTransferFrom({
                permitted: Permit2.TokenPermissions({token: token, amount: amount}),
                nonce: nonce,
                deadline: deadline
            }),
            Permit2.SignatureTransferDetails({to: SETTLEMENT, requestedAmount: amount}),
            payer,
            keccak256(abi.encode(DEPOSIT_WITNESS_TYPEHASH, channelId)),
            WITNESS_TYPE_STRING,
            signature
        );
    }

    /// @dev Approves Permit2 with the payer's EIP-2612 permit; one that fails (already approved, a used nonce) is
    /// ignored: the allowance decides.
    function _permit(address token, address payer, bytes memory permitData) private {
        (uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) =
            abi.decode(permitData, (uint256, uint256, uint8, bytes32, bytes32));
        try IERC20PermitForDeposit(token).permit(payer, address(PERMIT2), value, deadline, v, r, s) {} catch {}
    }
}
