// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Permit2} from "./Permit2.sol";

interface IERC20PermitForProxy {
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external;
}

/// @notice What x402's exact and upto Permit2 proxies share, written for the svc sandbox chain from the interface the
/// x402 EVM package calls: the proxy is the Permit2 spender, and a witness signed with the permit binds the destination.
/// No immutables and no constructor: Permit2's address is a constant, so the kit installs the runtime code as it is.
abstract contract X402Permit2ProxyBase {
    /// @notice Permit2 at its canonical address.
    Permit2 public constant PERMIT2 = Permit2(0x000000000022D473030F116dDEE9F6B43aC78BA3);

    struct EIP2612Permit {
        uint256 value;
        uint256 deadline;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    event Settled();
    event SettledWithPermit();

    error InvalidAmount();
    error InvalidDestination();
    error InvalidOwner();
    error InvalidPermit2Address();
    error PaymentTooEarly();
    error Permit2612AmountMismatch();
    error ReentrancyGuardReentrantCall();

    /// @dev 0 when no settlement runs (a fresh install has zeroed storage), 1 while one does.
    uint256 private _entered;

    modifier nonReentrant() {
        if (_entered == 1) revert ReentrancyGuardReentrantCall();
        _entered = 1;
        _;
        _entered = 0;
    }

    /// @dev Checks the payment's fields and moves `amount` through Permit2 with the witness hash.
    function _settle(
        Permit2.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        address to,
        uint256 validAfter,
        bytes32 witnessHash,
        string memory witnessTypeString,
        bytes calldata signature
    ) internal {
        if (amount == 0) revert InvalidAmount();
        if (owner == address(0)) revert InvalidOwner();
        if (to == address(0)) revert InvalidDestination();
        if (block.timestamp < validAfter) revert PaymentTooEarly();
        PERMIT2.permitWitnessTransferFrom(
            permit, Permit2.SignatureTransferDetails({to: to, requestedAmount: amount}), owner, witnessHash, witnessTypeString, signature
        );
    }

    /// @dev Approves Permit2 with the payer's EIP-2612 permit; a permit that fails (an approval already made, a used
    /// nonce) is ignored, and the transfer then stands or falls on the existing allowance.
    function _executePermit(address token, address owner, EIP2612Permit calldata permit2612, uint256 permittedAmount) internal {
        if (permit2612.value != permittedAmount) revert Permit2612AmountMismatch();
        try IERC20PermitForProxy(token).permit(
            owner, address(PERMIT2), permit2612.value, permit2612.deadline, permit2612.v, permit2612.r, permit2612.s
        ) {} catch {}
    }
}
