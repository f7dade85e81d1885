#!/usr/bin/env python3
"""Independent test vectors for verispec webhook signatures (seed: 6.4).

Made with:  python3 test/webhooks/make_vectors.py > test/webhooks/vectors.json

Digests come from Python only: hashlib.sha3_256 (SHA3-256) and hmac/hashlib.sha256
(HMAC-SHA256). Python's hashlib has no Keccak-256 (the pre-NIST padding), so this script
carries a small pure-Python Keccak-f[1600] sponge; it is checked against
hashlib.sha3_256 (same permutation, padding 0x06) and against the published
Keccak-256("") before any vector is written.
"""
import hashlib
import hmac
import json
import sys

# --- Keccak-f[1600], pure Python -------------------------------------------------
ROUND_CONSTANTS = [
    0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000,
    0x000000000000808B, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
    0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
    0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003,
    0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
    0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
]
ROTATIONS = [
    [0, 36, 3, 41, 18], [1, 44, 10, 45, 2], [62, 6, 43, 15, 61],
    [28, 55, 25, 21, 56], [27, 20, 39, 8, 14],
]
MASK = (1 << 64) - 1


def rol(value, shift):
    shift %= 64
    return ((value << shift) | (value >> (64 - shift))) & MASK


def keccak_f(a):
    """a[x][y] lanes, 24 rounds of theta, rho, pi, chi, iota."""
    for rc in ROUND_CONSTANTS:
        c = [a[x][0] ^ a[x][1] ^ a[x][2] ^ a[x][3] ^ a[x][4] for x in range(5)]
        d = [c[(x - 1) % 5] ^ rol(c[(x + 1) % 5], 1) for x in range(5)]
        a = [[a[x][y] ^ d[x] for y in range(5)] for x in range(5)]
        b = [[0] * 5 for _ in range(5)]
        for x in range(5):
            for y in range(5):
                b[y][(2 * x + 3 * y) % 5] = rol(a[x][y], ROTATIONS[x][y])
        a = [[b[x][y] ^ ((~b[(x + 1) % 5][y]) & b[(x + 2) % 5][y]) for y in range(5)] for x in range(5)]
        a[0][0] ^= rc
    return a


def sponge_256(data, pad_byte):
    rate = 136  # bytes, for a 256-bit capacity-512 sponge
    padded = bytearray(data) + bytes([pad_byte])
    padded += bytes((-len(padded)) % rate)
    padded[-1] |= 0x80
    state = [[0] * 5 for _ in range(5)]
    for offset in range(0, len(padded), rate):
        block = padded[offset:offset + rate]
        for i in range(rate // 8):
            x, y = i % 5, i // 5
            state[x][y] ^= int.from_bytes(block[8 * i:8 * i + 8], "little")
        state = keccak_f(state)
    out = b"".join(state[i % 5][i // 5].to_bytes(8, "little") for i in range(4))
    return out.hex()


def keccak_256(data):
    return sponge_256(data, 0x01)


# Self-checks: the sponge with SHA3 padding must equal hashlib, and Keccak-256("") is known.
for sample in [b"", b"abc", bytes(range(256)) * 3]:
    assert sponge_256(sample, 0x06) == hashlib.sha3_256(sample).hexdigest()
assert keccak_256(b"") == "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"

# --- Vectors ----------------------------------------------------------------------
SECRET = "whsec_test_4f1c9b2e7a"          # fake signing key, for tests only
OLD_SECRET = "whsec_rotated_out_0d3a"     # the previous key during a rotation
NOW = 1_767_225_600_000                   # 2026-01-01T00:00:00Z in Unix ms


def compact(obj):
    # Same text JSON.stringify gives for these objects (insertion order, no spaces, UTF-8 kept).
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def v1(body, key):
    data = body + key.encode("utf-8")
    return {
        "sha3_256": hashlib.sha3_256(data).hexdigest(),
        "keccak_256": keccak_256(data),
    }


def v2(body, key):
    return hmac.new(key.encode("utf-8"), body, hashlib.sha256).hexdigest()


def vector(name, body_text, key=SECRET):
    body = body_text.encode("utf-8")
    return {"name": name, "key": key, "body": body_text, "v1": v1(body, key), "v2": v2(body, key)}


v5_payload = {
    "version": "v5", "userId": "cust-42", "onBehalfUid": "obo-1", "tags": ["tier:gold"],
    "trace": "5b0c1e8a-0d7c-4e55-9a53-2f2a8c1f0a11", "submissionId": "sub-77",
    "name": "Acme Pty Ltd", "country": "AUS", "type": "company", "subType": "none",
    "verificationStatus": "verified", "submissionStatus": "submitted",
    "attempt": 1, "timestamp": NOW,
}
older_payload_ms = {
    "name": "Zoë Müller", "verificationStatus": "rejected",
    "trace": "9f1a", "submissionId": "9f1a", "entityType": "individual",
    "timestamp": NOW, "submissionStatus": "locked",
}
older_payload_s = dict(older_payload_ms, timestamp=NOW // 1000, verificationStatus="verified",
                       submissionStatus="submitted")

vectors = {
    "generatedBy": "python3 test/webhooks/make_vectors.py > test/webhooks/vectors.json",
    "python": sys.version.split()[0],
    "now": NOW,
    "secret": SECRET,
    "oldSecret": OLD_SECRET,
    "keccak256Empty": keccak_256(b""),
    "sha3_256Empty": hashlib.sha3_256(b"").hexdigest(),
    "cases": [
        vector("v5", compact(v5_payload)),
        # Pretty-printed on purpose: the signature covers the exact bytes, not re-serialised JSON.
        vector("v5_pretty", json.dumps(v5_payload, indent=2)),
        vector("older_ms", compact(older_payload_ms)),
        vector("older_seconds", compact(older_payload_s)),
        vector("v5_old_key", compact(v5_payload), key=OLD_SECRET),
        vector("empty", ""),
    ],
}

# Deprecated body-embedded v1 (seed: 6.4): the hashed text is the payload without its
# top-level "signature" key, serialised compactly, with the key appended.
unsigned = dict(older_payload_s)
unsigned_text = compact(unsigned).encode("utf-8")
digests = v1(unsigned_text, SECRET)
embedded = dict(unsigned)
embedded["signature"] = {
    "version": 1,
    "sha256": "svc_sec_sha256_" + digests["sha3_256"],
    "keccak256": "svc_sec_keccak256_" + digests["keccak_256"],
}
vectors["bodySignature"] = {"body": json.dumps(embedded, indent=2, ensure_ascii=False),
                            "hashedText": unsigned_text.decode("utf-8"), "digests": digests}

json.dump(vectors, sys.stdout, indent=2, ensure_ascii=False)
sys.stdout.write("\n")
