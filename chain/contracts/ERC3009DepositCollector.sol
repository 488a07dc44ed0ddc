// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {DepositCollectorBase} from "./DepositCollectorBase.sol";

interface IERC3009ReceiveWithAuthorization {
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

/// @notice x402's ERC-3009 deposit collector for the svc sandbox chain: receives the payer's
/// `ReceiveWithAuthorization` (payee: this collector; nonce `keccak256(abi.encode(channelId, salt))`, which binds the
/// authorization to the channel) and forwards the tokens to the batch-settlement contract.
/// `collectorData` is `abi.encode(uint256 validAfter, uint256 validBefore, uint256 salt, bytes signature)`.
contract ERC3009DepositCollector is DepositCollectorBase {
    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData)
        external
        onlySettlement
    {
        (uint256 validAfter, uint256 validBefore, uint256 salt, bytes memory signature) =
            abi.decode(collectorData, (uint256, uint256, uint256, bytes));
        bytes32 nonce = keccak256(abi.encode(channelId, salt));
        IERC3009ReceiveWithAuthorization(token).receiveWithAuthorization(
            payer, address(this), amount, validAfter, validBefore, nonce, signature
        );
        _transfer(token, SETTLEMENT, amount);
    }
}
