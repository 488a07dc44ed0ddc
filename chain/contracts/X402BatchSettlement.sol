// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {BatchSettlementSignatures} from "./BatchSettlementSignatures.sol";

/// @notice Pulls a deposit from the payer into the batch-settlement contract (the ERC-3009 and Permit2 collectors).
interface IDepositCollector {
    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData)
        external;
}

interface IERC20BatchSettlement {
    function balanceOf(address account) external view returns (uint256);
}

/// @notice x402's batch-settlement contract (payment channels) for the svc sandbox chain, written from the interface
/// and EIP-712 types the x402 EVM package's `batch-settlement` scheme calls and signs, and from the scheme's EVM spec: a
/// channel is the EIP-712 hash of its `ChannelConfig`; a deposit goes through a collector; vouchers are cumulative and
/// a claim never goes below what was claimed; claims and refunds are authorized by the channel's receiver authorizer
/// (directly or by signature); `settle` sweeps claimed funds to the receiver; the payer may withdraw unclaimed funds
/// after the channel's withdraw delay, judged by the block's timestamp.
/// No immutables and no constructor: the kit installs the runtime code at the official address (anvil_setCode), and
/// the EIP-712 domain is computed from the chain id and the contract's own address.
contract X402BatchSettlement is BatchSettlementSignatures {
    struct ChannelState {
        uint128 balance;
        uint128 totalClaimed;
    }

    struct PendingWithdrawal {
        uint128 amount;
        uint40 initiatedAt;
    }

    struct ReceiverState {
        uint128 totalClaimed;
        uint128 totalSettled;
    }

    uint40 public constant MIN_WITHDRAW_DELAY = 900;
    uint40 public constant MAX_WITHDRAW_DELAY = 2_592_000;

    mapping(bytes32 channelId => ChannelState) public channels;
    mapping(bytes32 channelId => PendingWithdrawal) public pendingWithdrawals;
    mapping(bytes32 channelId => uint256) public refundNonce;
    mapping(address receiver => mapping(address token => ReceiverState)) public receivers;

    bool private transient _entered;

    event ChannelCreated(bytes32 indexed channelId, ChannelConfig config);
    event Deposited(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 balance);
    event Claimed(bytes32 indexed channelId, address indexed receiver, uint128 amount, uint128 totalClaimed);
    event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount);
    event Refunded(bytes32 indexed channelId, address indexed payer, uint128 amount, uint256 nonce);
    event WithdrawInitiated(bytes32 indexed channelId, uint128 amount, uint40 initiatedAt);
    event Withdrawn(bytes32 indexed channelId, address indexed payer, uint128 amount);
    event ChannelClosed(bytes32 indexed channelId, ChannelConfig config);

    error InvalidChannelConfig();
    error ZeroAmount();
    error DepositNotReceived();
    error ClaimBelowClaimed(bytes32 channelId, uint128 totalClaimed, uint128 claimed);
    error ClaimAboveVoucher(bytes32 channelId);
    error ClaimAboveBalance(bytes32 channelId);
    error InvalidVoucherSignature(bytes32 channelId);
    error InvalidAuthorizerSignature();
    error MixedReceiverAuthorizers();
    error NotReceiverOrAuthorizer();
    error NotPayerOrAuthorizer();
    error InvalidRefundNonce(uint256 expected, uint256 given);
    error WithdrawAlreadyPending();
    error WithdrawAboveAvailable();
    error NoPendingWithdraw();
    error WithdrawDelayNotElapsed(uint256 finalizableAt);
    error TransferFailed();
    error ReentrantCall();

    modifier nonReentrant() {
        if (_entered) revert ReentrantCall();
        _entered = true;
        _;
        _entered = false;
    }

    // --- deposits -------------------------------------------------------------------------------------------------

    /// @notice Adds `amount` to the channel, pulled from the payer by `collector` (which checks the payer's
    /// authorization); the contract counts what it actually received.
    function deposit(ChannelConfig calldata config, uint128 amount, address collector, bytes calldata collectorData)
        external
        nonReentrant
    {
        _checkConfig(config);
        if (amount == 0) revert ZeroAmount();
        bytes32 channelId = getChannelId(config);
        uint256 before = IERC20BatchSettlement(config.token).balanceOf(address(this));
        IDepositCollector(collector).collect(config.payer, config.token, amount, channelId, collectorData);
        if (IERC20BatchSettlement(config.token).balanceOf(address(this)) < before + amount) revert DepositNotReceived();
        ChannelState storage channel = channels[channelId];
        if (channel.balance == channel.totalClaimed && channel.totalClaimed == 0) emit ChannelCreated(channelId, config);
        channel.balance += amount;
        emit Deposited(channelId, msg.sender, amount, channel.balance);
    }

    // --- claims and settlement ------------------------------------------------------------------------------------

    /// @notice Claims vouchers; the caller is every row's receiver or receiver authorizer.
    function claim(VoucherClaim[] calldata voucherClaims) external nonReentrant {
        for (uint256 i = 0; i < voucherClaims.length; i++) {
            ChannelConfig calldata channel = voucherClaims[i].voucher.channel;
            if (msg.sender != channel.receiver && msg.sender != channel.receiverAuthorizer) {
                revert NotReceiverOrAuthorizer();
            }
            _claim(voucherClaims[i]);
        }
    }

    /// @notice Claims vouchers with the receiver authorizer's EIP-712 `ClaimBatch` signature (anyone may relay it);
    /// every row has the same receiver authorizer.
    function claimWithSignature(VoucherClaim[] calldata voucherClaims, bytes calldata authorizerSignature)
        external
        nonReentrant
    {
        if (voucherClaims.length == 0) return;
        address authorizer = voucherClaims[0].voucher.channel.receiverAuthorizer;
        for (uint256 i = 1; i < voucherClaims.length; i++) {
            if (voucherClaims[i].voucher.channel.receiverAuthorizer != authorizer) revert MixedReceiverAuthorizers();
        }
        if (!_isValidSignature(authorizer, getClaimBatchDigest(voucherClaims), authorizerSignature)) {
            revert InvalidAuthorizerSignature();
        }
        for (uint256 i = 0; i < voucherClaims.length; i++) {
            _claim(voucherClaims[i]);
        }
    }

    /// @notice Sends everything claimed and not yet settled for `receiver` in `token` to the receiver. Permissionless.
    function settle(address receiver, address token) external nonReentrant {
        ReceiverState storage state = receivers[receiver][token];
        uint128 amount = state.totalClaimed - state.totalSettled;
        if (amount == 0) return;
        state.totalSettled = state.totalClaimed;
        _transfer(token, receiver, amount);
        emit Settled(receiver, token, msg.sender, amount);
    }

    // --- refunds --------------------------------------------------------------------------------------------------

    /// @notice Returns up to `amount` of the channel's unclaimed funds to the payer; the caller is the receiver or its
    /// authorizer.
    function refund(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        if (msg.sender != config.receiver && msg.sender != config.receiverAuthorizer) revert NotReceiverOrAuthorizer();
        _refund(config, getChannelId(config), amount);
    }

    /// @notice {refund} with the receiver authorizer's EIP-712 `Refund` signature for the channel's current nonce
    /// (anyone may relay it; a nonce is used once).
    function refundWithSignature(
        ChannelConfig calldata config,
        uint128 amount,
        uint256 nonce,
        bytes calldata receiverAuthorizerSignature
    ) external nonReentrant {
        bytes32 channelId = getChannelId(config);
        uint256 expected = refundNonce[channelId];
        if (nonce != expected) revert InvalidRefundNonce(expected, nonce);
        if (
            !_isValidSignature(
                config.receiverAuthorizer, getRefundDigest(channelId, nonce, amount), receiverAuthorizerSignature
            )
        ) revert InvalidAuthorizerSignature();
        _refund(config, channelId, amount);
    }

    // --- timed withdrawal -----------------------------------------------------------------------------------------

    /// @notice Starts the payer's withdrawal of `amount` unclaimed funds; it can be finished `withdrawDelay` seconds
    /// later (meanwhile the receiver can still claim).
    function initiateWithdraw(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        _onlyPayer(config);
        if (amount == 0) revert ZeroAmount();
        bytes32 channelId = getChannelId(config);
        ChannelState storage channel = channels[channelId];
        if (pendingWithdrawals[channelId].initiatedAt != 0) revert WithdrawAlreadyPending();
        if (amount > channel.balance - channel.totalClaimed) revert WithdrawAboveAvailable();
        pendingWithdrawals[channelId] = PendingWithdrawal({amount: amount, initiatedAt: uint40(block.timestamp)});
        emit WithdrawInitiated(channelId, amount, uint40(block.timestamp));
    }

    /// @notice Finishes the pending withdrawal once its delay has passed, capped at what is still unclaimed.
    function finalizeWithdraw(ChannelConfig calldata config) external nonReentrant {
        _onlyPayer(config);
        bytes32 channelId = getChannelId(config);
        PendingWithdrawal memory pending = pendingWithdrawals[channelId];
        if (pending.initiatedAt == 0) revert NoPendingWithdraw();
        uint256 finalizableAt = uint256(pending.initiatedAt) + config.withdrawDelay;
        if (block.timestamp < finalizableAt) revert WithdrawDelayNotElapsed(finalizableAt);
        delete pendingWithdrawals[channelId];
        ChannelState storage channel = channels[channelId];
        uint128 available = channel.balance - channel.totalClaimed;
        uint128 amount = pending.amount < available ? pending.amount : available;
        channel.balance -= amount;
        if (amount > 0) _transfer(config.token, config.payer, amount);
        emit Withdrawn(channelId, config.payer, amount);
        _closedIfEmpty(config, channelId, channel);
    }

    // --- batching -------------------------------------------------------------------------------------------------

    /// @notice Runs several calls on this contract in one transaction (a claim and a refund together); any revert
    /// reverts them all.
    function multicall(bytes[] calldata data) external returns (bytes[] memory results) {
        results = new bytes[](data.length);
        for (uint256 i = 0; i < data.length; i++) {
            (bool ok, bytes memory result) = address(this).delegatecall(data[i]);
            if (!ok) {
                assembly {
                    revert(add(result, 0x20), mload(result))
                }
            }
            results[i] = result;
        }
    }

    // --- internals ------------------------------------------------------------------------------------------------

    function _claim(VoucherClaim calldata row) private {
        ChannelConfig calldata config = row.voucher.channel;
        bytes32 channelId = getChannelId(config);
        ChannelState storage channel = channels[channelId];
        uint128 claimed = row.totalClaimed;
        uint128 previous = channel.totalClaimed;
        // Vouchers are cumulative: a lower one is refused, the same one is already counted.
        if (claimed < previous) revert ClaimBelowClaimed(channelId, previous, claimed);
        if (claimed == previous) return;
        if (claimed > row.voucher.maxClaimableAmount) revert ClaimAboveVoucher(channelId);
        if (claimed > channel.balance) revert ClaimAboveBalance(channelId);
        bytes32 digest = getVoucherDigest(channelId, row.voucher.maxClaimableAmount);
        bool signed = config.payerAuthorizer != address(0)
            ? _recover(digest, row.signature) == config.payerAuthorizer
            : _isValidSignature(config.payer, digest, row.signature);
        if (!signed) revert InvalidVoucherSignature(channelId);
        channel.totalClaimed = claimed;
        receivers[config.receiver][config.token].totalClaimed += claimed - previous;
        emit Claimed(channelId, config.receiver, claimed - previous, claimed);
    }

    /// @dev The nonce moves first, so a refund with nothing left to return still uses its signature.
    function _refund(ChannelConfig calldata config, bytes32 channelId, uint128 amount) private {
        uint256 nonce = refundNonce[channelId]++;
        ChannelState storage channel = channels[channelId];
        uint128 available = channel.balance - channel.totalClaimed;
        uint128 refunded = amount < available ? amount : available;
        if (refunded == 0) return;
        channel.balance -= refunded;
        PendingWithdrawal storage pending = pendingWithdrawals[channelId];
        if (pending.initiatedAt != 0) {
            if (pending.amount <= refunded) delete pendingWithdrawals[channelId];
            else pending.amount -= refunded;
        }
        _transfer(config.token, config.payer, refunded);
        emit Refunded(channelId, config.payer, refunded, nonce);
        _closedIfEmpty(config, channelId, channel);
    }

    function _closedIfEmpty(ChannelConfig calldata config, bytes32 channelId, ChannelState storage channel) private {
        if (channel.balance == channel.totalClaimed && channel.totalClaimed == 0) emit ChannelClosed(channelId, config);
    }

    function _checkConfig(ChannelConfig calldata config) private pure {
        if (
            config.payer == address(0) || config.receiver == address(0) || config.receiverAuthorizer == address(0)
                || config.token == address(0) || config.withdrawDelay < MIN_WITHDRAW_DELAY
                || config.withdrawDelay > MAX_WITHDRAW_DELAY
        ) revert InvalidChannelConfig();
    }

    function _onlyPayer(ChannelConfig calldata config) private view {
        if (msg.sender != config.payer && (config.payerAuthorizer == address(0) || msg.sender != config.payerAuthorizer))
        {
            revert NotPayerOrAuthorizer();
        }
    }

    function _transfer(address token, address to, uint256 amount) private {
        (bool ok, bytes memory data) = token.call(abi.encodeWithSelector(0xa9059cbb, to, amount));
        if (!ok || (data.length > 0 && !abi.decode(data, (bool))) || (data.length == 0 && token.code.length == 0)) {
            revert TransferFailed();
        }
    }
}
