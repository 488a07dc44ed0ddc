// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice What x402's deposit collectors share: only the batch-settlement contract (at its official address, a
/// constant, so the kit installs the runtime code without a constructor) may ask them to collect a deposit.
abstract contract DepositCollectorBase {
    address public constant SETTLEMENT = 0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003;

    error OnlySettlement();
    error TransferFailed();

    modifier onlySettlement() {
        if (msg.sender != SETTLEMENT) revert OnlySettlement();
        _;
    }

    function _transfer(address token, address to, uint256 amount) internal {
        (bool ok, bytes memory data) = token.call(abi.encodeWithSelector(0xa9059cbb, to, amount));
        if (!ok || (data.length > 0 && !abi.decode(data, (bool))) || (data.length == 0 && token.code.length == 0)) {
            revert TransferFailed();
        }
    }
}
