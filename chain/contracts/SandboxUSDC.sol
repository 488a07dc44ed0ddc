// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice A USDC-compatible token for the svc sandbox chain.
/// It mirrors the parts of Circle's FiatToken v2.2 that x402 relies on: 6 decimals, the EIP-712 domain
/// (name "USDC" as the kit installs it, version "2"), EIP-3009 transfer/receive/cancel authorizations with both the (v, r, s) and the
/// `bytes signature` overloads (EIP-1271 for contract signers), EIP-2612 permit, and FiatToken's revert strings.
/// It has no constructor: the kit installs the runtime code at the mainnet USDC address and calls `initialize`.
interface IERC1271 {
    function isValidSignature(bytes32 hash, bytes memory signature) external view returns (bytes4 magicValue);
}

contract SandboxUSDC {
    // keccak256("TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)")
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH =
        0x7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267;
    // keccak256("ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)")
    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH =
        0xd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de8;
    // keccak256("CancelAuthorization(address authorizer,bytes32 nonce)")
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH =
        0x158b0a9edf7a828aad02f63cd515c68ef2f50ba807396f6d12842833a1597429;
    // keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)")
    bytes32 public constant PERMIT_TYPEHASH = 0x6e71edae12b1b97f4d1f60370fef10105fa2faae0126114a169c64845d6126c9;
    bytes32 private constant EIP712_DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

    string public name;
    string public constant symbol = "USDC";
    string public constant currency = "USD";
    uint8 public constant decimals = 6;

    address public owner;
    bool public initialized;
    uint256 public totalSupply;
    mapping(address => uint256) private _balances;
    mapping(address => mapping(address => uint256)) private _allowances;
    mapping(address => bool) public isMinter;
    /// @dev The used and canceled authorizations of chains saved before the packed set below; still read.
    mapping(address => mapping(bytes32 => bool)) private _authorizationStates;
    mapping(address => uint256) public nonces;
    /// @dev Used and canceled EIP-3009 authorizations, packed (see `_authorizationUsed`): a bucket's slot is
    /// `generation << 128 | index`, and holds four 64-bit fingerprints.
    mapping(uint256 => uint256) private _usedAuthorizationBuckets;
    /// @dev The generation new fingerprints go to, and how many went to it plus one (never zero once initialized, so
    /// counting costs no fresh-slot write; 0 on a token that replaced an older one's code means none either).
    uint256 private _usedAuthorizationGeneration;
    uint256 private _usedAuthorizationsInGeneration;
    /// @dev Which buckets hold anything, a bit each, 255 to a slot (`generation << 120 | index / 255`), the top bit set
    /// in every slot written (so marking a bucket never writes a fresh slot once the first generation's are set up):
    /// an empty bucket is never read (see `_authorizationUsed`).
    mapping(uint256 => uint256) private _usedAuthorizationOccupancy;
    /// @dev Set (by svc, in storage) when this code replaced an older token's: `_authorizationStates` may hold
    /// authorizations then, and is read too; on a chain that never had it, its empty slots are never read.
    bool private _legacyAuthorizations;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event Mint(address indexed minter, address indexed to, uint256 amount);
    event Burn(address indexed burner, uint256 amount);
    event MinterConfigured(address indexed minter, bool allowed);
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    modifier onlyOwner() {
        require(msg.sender == owner, "Ownable: caller is not the owner");
        _;
    }

    modifier onlyMinters() {
        require(isMinter[msg.sender], "FiatToken: caller is not a minter");
        _;
    }

    /// @notice Sets the EIP-712 name (FiatToken keeps it in storage too) and the owner, who becomes a minter.
    /// Callable once.
    function initialize(address newOwner, string calldata tokenName) external {
        require(!initialized, "FiatToken: contract is already initialized");
        require(newOwner != address(0), "FiatToken: new owner is the zero address");
        initialized = true;
        owner = newOwner;
        name = tokenName;
        isMinter[newOwner] = true;
        // Counting and marking buckets then write no fresh slot: a transfer costs about 90k gas, not 125k.
        _usedAuthorizationsInGeneration = 1;
        for (uint256 word = 0; word * 255 < FIRST_GENERATION_BUCKETS; word++) _usedAuthorizationOccupancy[word] = OCCUPANCY_SET_UP;
        emit MinterConfigured(newOwner, true);
    }

    function version() external pure returns (string memory) {
        return "2";
    }

    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(
            abi.encode(EIP712_DOMAIN_TYPEHASH, keccak256(bytes(name)), keccak256(bytes("2")), block.chainid, address(this))
        );
    }

    // ---------------------------------------------------------------- ERC-20

    function balanceOf(address account) external view returns (uint256) {
        return _balances[account];
    }

    function allowance(address holder, address spender) external view returns (uint256) {
        return _allowances[holder][spender];
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 current = _allowances[from][msg.sender];
        require(value <= current, "ERC20: transfer amount exceeds allowance");
        if (current != type(uint256).max) _allowances[from][msg.sender] = current - value;
        _transfer(from, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        _approve(msg.sender, spender, value);
        return true;
    }

    function increaseAllowance(address spender, uint256 increment) external returns (bool) {
        _approve(msg.sender, spender, _allowances[msg.sender][spender] + increment);
        return true;
    }

    function decreaseAllowance(address spender, uint256 decrement) external returns (bool) {
        uint256 current = _allowances[msg.sender][spender];
        require(decrement <= current, "ERC20: decreased allowance below zero");
        _approve(msg.sender, spender, current - decrement);
        return true;
    }

    // ---------------------------------------------------------------- minting

    function configureMinter(address minter, bool allowed) external onlyOwner {
        isMinter[minter] = allowed;
        emit MinterConfigured(minter, allowed);
    }

    function mint(address to, uint256 amount) external onlyMinters returns (bool) {
        require(to != address(0), "FiatToken: mint to the zero address");
        require(amount > 0, "FiatToken: mint amount not greater than 0");
        totalSupply += amount;
        _balances[to] += amount;
        emit Mint(msg.sender, to, amount);
        emit Transfer(address(0), to, amount);
        return true;
    }

    function burn(uint256 amount) external onlyMinters {
        uint256 balance = _balances[msg.sender];
        require(amount > 0, "FiatToken: burn amount not greater than 0");
        require(balance >= amount, "FiatToken: burn amount exceeds balance");
        totalSupply -= amount;
        _balances[msg.sender] = balance - amount;
        emit Burn(msg.sender, amount);
        emit Transfer(msg.sender, address(0), amount);
    }

    // ---------------------------------------------------------------- EIP-3009

    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return _authorizationUsed(authorizer, nonce);
    }

    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v));
    }

    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) public {
        _requireValidAuthorization(from, nonce, validAfter, validBefore);
        _requireValidSignature(
            from,
            keccak256(abi.encode(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce)),
            signature
        );
        _markAuthorizationAsUsed(from, nonce);
        _transfer(from, to, value);
    }

    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        receiveWithAuthorization(from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v));
    }

    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) public {
        require(to == msg.sender, "FiatTokenV2: caller must be the payee");
        _requireValidAuthorization(from, nonce, validAfter, validBefore);
        _requireValidSignature(
            from,
            keccak256(abi.encode(RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce)),
            signature
        );
        _markAuthorizationAsUsed(from, nonce);
        _transfer(from, to, value);
    }

    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external {
        cancelAuthorization(authorizer, nonce, abi.encodePacked(r, s, v));
    }

    function cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature) public {
        require(!_authorizationUsed(authorizer, nonce), "FiatTokenV2: authorization is used or canceled");
        _requireValidSignature(authorizer, keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce)), signature);
        _recordAuthorization(authorizer, nonce);
        emit AuthorizationCanceled(authorizer, nonce);
    }

    // ---------------------------------------------------------------- EIP-2612

    function permit(address holder, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
    {
        permit(holder, spender, value, deadline, abi.encodePacked(r, s, v));
    }

    function permit(address holder, address spender, uint256 value, uint256 deadline, bytes memory signature) public {
        require(deadline == type(uint256).max || deadline >= block.timestamp, "FiatTokenV2: permit is expired");
        _requireValidSignature(
            holder,
            keccak256(abi.encode(PERMIT_TYPEHASH, holder, spender, value, nonces[holder]++, deadline)),
            signature
        );
        _approve(holder, spender, value);
    }

    // ---------------------------------------------------------------- internals

    function _transfer(address from, address to, uint256 value) private {
        require(from != address(0), "ERC20: transfer from the zero address");
        require(to != address(0), "ERC20: transfer to the zero address");
        uint256 balance = _balances[from];
        require(value <= balance, "ERC20: transfer amount exceeds balance");
        _balances[from] = balance - value;
        _balances[to] += value;
        emit Transfer(from, to, value);
    }

    function _approve(address holder, address spender, uint256 value) private {
        require(holder != address(0), "ERC20: approve from the zero address");
        require(spender != address(0), "ERC20: approve to the zero address");
        _allowances[holder][spender] = value;
        emit Approval(holder, spender, value);
    }

    function _requireValidAuthorization(address authorizer, bytes32 nonce, uint256 validAfter, uint256 validBefore)
        private
        view
    {
        require(block.timestamp > validAfter, "FiatTokenV2: authorization is not yet valid");
        require(block.timestamp < validBefore, "FiatTokenV2: authorization is expired");
        require(!_authorizationUsed(authorizer, nonce), "FiatTokenV2: authorization is used or canceled");
    }

    function _markAuthorizationAsUsed(address authorizer, bytes32 nonce) private {
        _recordAuthorization(authorizer, nonce);
        emit AuthorizationUsed(authorizer, nonce);
    }

    // ------------------------------------------------- the set of used authorizations

    /// Buckets of the first generation; each next one has twice as many.
    uint256 private constant FIRST_GENERATION_BUCKETS = 1024;
    uint256 private constant FINGERPRINT_MASK = type(uint64).max;
    uint256 private constant OCCUPANCY_SET_UP = 1 << 255;

    /// @dev Whether an authorization was used or canceled.
    /// Why packed: Anvil (1.7.1) recomputes the state root over every storage slot of every account for each block,
    /// about 1 ms per 1,000 slots, and answers nothing else meanwhile; with a slot per authorization a sandbox that
    /// had settled 20,000 payments mined each block in 20 ms and settled ever slower. Here an authorization is a 64-bit
    /// fingerprint of keccak256(authorizer, nonce), four to a slot, in a hash set that grows by generations, each
    /// twice the size of the one before (the first has 1,024 buckets); older ones are only read, never rehashed. A
    /// fingerprint has two candidate buckets in each generation and goes to the emptier one in the current generation,
    /// or, both full (rare), to the first bucket with room after the first candidate; the next generation starts once
    /// 3/4 of the lanes are taken. A lookup reads the two candidates of each generation (and, both full, the buckets
    /// after the first up to one with room). Anvil also keeps every slot a mined
    /// transaction read, zero or not, and hashes it with the rest: so in the current generation an empty bucket is
    /// never read, an occupancy bit says whether there is anything to read. About 2.5 times fewer slots than one a
    /// nonce; a transfer costs 90-100k gas (mainnet USDC: about 80k), up to about 145k just after a generation starts,
    /// while its occupancy slots are first written. A fingerprint match of another authorization (2^-64 per comparison)
    /// would report an unused nonce as used.
    function _authorizationUsed(address authorizer, bytes32 nonce) private view returns (bool) {
        if (_legacyAuthorizations && _authorizationStates[authorizer][nonce]) return true;
        (uint256 key, uint256 fingerprint) = _authorizationKey(authorizer, nonce);
        uint256 current = _usedAuthorizationGeneration;
        for (uint256 generation = 0; generation <= current; generation++) {
            (uint256 first, uint256 second) = _candidateBuckets(key, generation);
            // An older generation is full: its buckets are read without their occupancy bits (few are empty).
            bool older = generation < current;
            uint256 firstTaken = _lanesTaken(older ? _usedAuthorizationBuckets[first] : _bucket(first), fingerprint);
            if (firstTaken == 5) return true;
            uint256 secondTaken = _lanesTaken(older ? _usedAuthorizationBuckets[second] : _bucket(second), fingerprint);
            if (secondTaken == 5) return true;
            if (firstTaken < 4 || secondTaken < 4) continue;
            // Both full when it came: it went to the first bucket with room after the first candidate.
            for (uint256 step = 1; ; step++) {
                uint256 taken = _lanesTaken(older ? _usedAuthorizationBuckets[_next(first, generation, step)] : _bucket(_next(first, generation, step)), fingerprint);
                if (taken == 5) return true;
                if (taken < 4) break;
            }
        }
        return false;
    }

    /// @dev Records an authorization known not to be in the set yet.
    function _recordAuthorization(address authorizer, bytes32 nonce) private {
        (uint256 key, uint256 fingerprint) = _authorizationKey(authorizer, nonce);
        uint256 generation = _usedAuthorizationGeneration;
        (uint256 first, uint256 second) = _candidateBuckets(key, generation);
        uint256 firstBucket = _bucket(first);
        uint256 secondBucket = _bucket(second);
        uint256 firstTaken = _lanesTaken(firstBucket, 0);
        uint256 secondTaken = _lanesTaken(secondBucket, 0);
        if (firstTaken < 4 || secondTaken < 4) {
            if (firstTaken <= secondTaken) _fillLane(first, firstBucket, firstTaken, fingerprint);
            else _fillLane(second, secondBucket, secondTaken, fingerprint);
        } else {
            for (uint256 step = 1; ; step++) {
                uint256 bucket = _next(first, generation, step);
                uint256 fingerprints = _bucket(bucket);
                uint256 taken = _lanesTaken(fingerprints, 0);
                if (taken < 4) {
                    _fillLane(bucket, fingerprints, taken, fingerprint);
                    break;
                }
            }
        }
        uint256 stored = _usedAuthorizationsInGeneration;
        uint256 count = (stored == 0 ? 0 : stored - 1) + 1;
        // 3/4 of the generation's lanes (four a bucket) taken: the next one starts. Fuller, both candidates of a
        // fingerprint would often be full, and lookups would read on past them.
        if (count >= (FIRST_GENERATION_BUCKETS << generation) * 3) {
            _usedAuthorizationGeneration = generation + 1;
            _usedAuthorizationsInGeneration = 1;
        } else {
            _usedAuthorizationsInGeneration = count + 1;
        }
    }

    /// @dev The bucket `step` places after `bucket` in its generation (wrapping around).
    function _next(uint256 bucket, uint256 generation, uint256 step) private pure returns (uint256) {
        uint256 mask = (FIRST_GENERATION_BUCKETS << generation) - 1;
        return (generation << 128) | (((bucket & mask) + step) & mask);
    }

    /// @dev The two buckets (`generation << 128 | index`) a fingerprint may be in, in a generation.
    function _candidateBuckets(uint256 key, uint256 generation) private pure returns (uint256 first, uint256 second) {
        uint256 mask = (FIRST_GENERATION_BUCKETS << generation) - 1;
        first = (generation << 128) | ((key >> 64) & mask);
        second = (generation << 128) | ((key >> 128) & mask);
    }

    /// @dev A bucket's fingerprints, its slot read only when its occupancy bit says it holds any.
    function _bucket(uint256 bucket) private view returns (uint256) {
        (uint256 word, uint256 bit) = _occupancyOf(bucket);
        if ((_usedAuthorizationOccupancy[word] >> bit) & 1 == 0) return 0;
        return _usedAuthorizationBuckets[bucket];
    }

    /// @dev A bucket's occupancy slot and bit.
    function _occupancyOf(uint256 bucket) private pure returns (uint256 word, uint256 bit) {
        uint256 index = bucket & type(uint128).max;
        word = ((bucket >> 128) << 120) | (index / 255);
        bit = index % 255;
    }

    /// @dev Writes the fingerprint into lane `lane` of the bucket (which held `fingerprints`), marking it occupied.
    function _fillLane(uint256 bucket, uint256 fingerprints, uint256 lane, uint256 fingerprint) private {
        _usedAuthorizationBuckets[bucket] = fingerprints | (fingerprint << (64 * lane));
        if (lane == 0) {
            (uint256 word, uint256 bit) = _occupancyOf(bucket);
            _usedAuthorizationOccupancy[word] |= OCCUPANCY_SET_UP | (1 << bit);
        }
    }

    function _authorizationKey(address authorizer, bytes32 nonce) private pure returns (uint256 key, uint256 fingerprint) {
        key = uint256(keccak256(abi.encode(authorizer, nonce)));
        // Never 0, which marks a free lane.
        fingerprint = (key & FINGERPRINT_MASK) | 1;
    }

    /// @dev Lanes fill from the lowest: the count of lanes taken (0 to 4), or 5 when one holds `fingerprint`.
    function _lanesTaken(uint256 bucket, uint256 fingerprint) private pure returns (uint256) {
        for (uint256 lane = 0; lane < 4; lane++) {
            uint256 value = (bucket >> (64 * lane)) & FINGERPRINT_MASK;
            if (value == 0) return lane;
            if (value == fingerprint) return 5;
        }
        return 4;
    }

    function _requireValidSignature(address signer, bytes32 structHash, bytes memory signature) private view {
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
        require(_isValidSignatureNow(signer, digest, signature), "FiatTokenV2: invalid signature");
    }

    /// @dev Like OpenZeppelin's SignatureChecker: ECDSA for EOAs, EIP-1271 for contracts.
    function _isValidSignatureNow(address signer, bytes32 digest, bytes memory signature) private view returns (bool) {
        if (signer.code.length == 0) return _recover(digest, signature) == signer;
        (bool ok, bytes memory result) =
            signer.staticcall(abi.encodeWithSelector(IERC1271.isValidSignature.selector, digest, signature));
        return ok && result.length >= 32 && abi.decode(result, (bytes32)) == bytes32(IERC1271.isValidSignature.selector);
    }

    function _recover(bytes32 digest, bytes memory signature) private pure returns (address) {
        if (signature.length != 65) return address(0);
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly {
            r := mload(add(signature, 0x20))
            s := mload(add(signature, 0x40))
            v := byte(0, mload(add(signature, 0x60)))
        }
        if (v < 27) v += 27;
        require(
            uint256(s) <= 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0,
            "ECRecover: invalid signature 's' value"
        );
        require(v == 27 || v == 28, "ECRecover: invalid signature 'v' value");
        address recovered = ecrecover(digest, v, r, s);
        require(recovered != address(0), "ECRecover: invalid signature");
        return recovered;
    }
}
