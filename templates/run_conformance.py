#!/usr/bin/env python3
"""An independent runner of verispec's conformance vectors (generated/conformance/), in Python.

Standard library, plus `jsonschema` where it is installed, as another team would write it:

1. requests.json: each case's payload is validated with jsonschema (Draft 2020-12, with its format
   checker) against generated/schemas/<schema>.json; the verdict must equal the case's `valid`.
   (The exact issues are the service's wording; a JSON Schema validator gives its own, so only the
   verdict is compared here.)
2. webhooks.json: every case and every replay sequence is verified here from scratch: hmac/hashlib
   for HMAC-SHA256 and SHA3-256, a Keccak-256 of its own (hashlib has none), the checks in the order
   the file's format names; verdict and reason must equal the case's.

Without `jsonschema` (Debian: python3-jsonschema; else pip install jsonschema), the standard library
alone decides every webhook case but those whose verdict rests on the payload's schema (`invalid_payload`):
the request cases and those are counted as skipped, and the run says so.

Usage: python3 generated/conformance/run_conformance.py [--root DIR] [--json]
--root: the directory holding `generated/` (default: the one holding the `generated/` this file is in:
your project for `./generated`, the package for node_modules/verispec/generated). Exit 0 when every case it decides agrees; 1 on a disagreement; 2 when the
files are unusable.
"""
from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import sys

try:
    from jsonschema import Draft202012Validator
except ImportError:  # the standard library alone: see the module's documentation
    Draft202012Validator = None

NO_JSONSCHEMA = "the Python package jsonschema is not installed (apt-get install python3-jsonschema, or pip install jsonschema)"

# --- Keccak-256 (the original Keccak padding 0x01; SHA3-256 is the same sponge with 0x06) -------------
_RC = [
    0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000, 0x000000000000808B, 0x0000000080000001,
    0x8000000080008081, 0x8000000000008009, 0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
    0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003, 0x8000000000008002, 0x8000000000000080,
    0x000000000000800A, 0x800000008000000A, 0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
]
# Rotation offsets by lane index x + 5 * y.
_ROT = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14]
_M = (1 << 64) - 1


def _permute(s: list[int]) -> None:
    for rc in _RC:
        c = [s[x] ^ s[x + 5] ^ s[x + 10] ^ s[x + 15] ^ s[x + 20] for x in range(5)]
        for x in range(5):
            d = c[(x - 1) % 5] ^ (((c[(x + 1) % 5] << 1) | (c[(x + 1) % 5] >> 63)) & _M)
            for y in range(0, 25, 5):
                s[x + y] ^= d
        b = [0] * 25
        for x in range(5):
            for y in range(5):
                r = _ROT[x + 5 * y]
                v = s[x + 5 * y]
                b[y + 5 * ((2 * x + 3 * y) % 5)] = ((v << r) | (v >> (64 - r))) & _M if r else v
        for y in range(0, 25, 5):
            row = b[y:y + 5]
            for x in range(5):
                s[x + y] = row[x] ^ ((~row[(x + 1) % 5]) & row[(x + 2) % 5])
        s[0] ^= rc


def _sponge256(data: bytes, pad: int) -> bytes:
    rate = 136
    msg = bytearray(data) + bytes([pad]) + bytes((-(len(data) + 1)) % rate)
    msg[-1] |= 0x80
    s = [0] * 25
    for off in range(0, len(msg), rate):
        for i in range(rate // 8):
            s[i] ^= int.from_bytes(msg[off + 8 * i:off + 8 * i + 8], "little")
        _permute(s)
    return b"".join(s[i].to_bytes(8, "little") for i in range(4))


def keccak256(data: bytes) -> bytes:
    return _sponge256(data, 0x01)


for _sample in (b"", b"abc", bytes(range(256)) * 2):
    assert _sponge256(_sample, 0x06) == hashlib.sha3_256(_sample).digest(), "Keccak sponge self-check failed"
assert keccak256(b"").hex() == "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470", "Keccak-256 self-check failed"


# --- Webhook verification, in the order of the format's reasons -------------------------------------
class Refused(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _digest(value: str, prefix: str) -> bytes:
    hexpart = value[len(prefix):] if value.startswith(prefix) else None
    if hexpart is None or len(hexpart) != 64:
        raise Refused("malformed_signature")
    try:
        return bytes.fromhex(hexpart)
    except ValueError:
        raise Refused("malformed_signature") from None


def _v1_matches(secrets: list[bytes], signed: bytes, sha: bytes | None, kec: bytes | None) -> bool:
    for key in secrets:
        if sha is not None and not hmac.compare_digest(hashlib.sha3_256(signed + key).digest(), sha):
            continue
        if kec is not None and not hmac.compare_digest(keccak256(signed + key), kec):
            continue
        return True
    return False


class Verifier:
    def __init__(self, schemas: dict[str, dict], tolerance_ms: int):
        self.payload_validators = {} if Draft202012Validator is None else {v: Draft202012Validator(s, format_checker=Draft202012Validator.FORMAT_CHECKER) for v, s in schemas.items()}
        self.tolerance_ms = tolerance_ms
        self.seen: set[str] = set()

    def verify(self, d: dict) -> tuple[str, str | None]:
        try:
            self._verify(d)
            return ("accept", None)
        except Refused as r:
            return ("reject", r.reason)

    def _verify(self, d: dict) -> None:
        body = d["body"].encode("utf-8")
        secrets = [s.encode("utf-8") for s in d["secrets"]]
        h = {k.lower(): v for k, v in d["headers"].items() if v != ""}
        v2, sha, kec, declared = h.get("x-svc-signature"), h.get("x-svc-signature-sha"), h.get("x-svc-signature-keccak"), h.get("x-svc-signature-version")
        if v2 is None and sha is None and kec is None:
            if not d.get("allowBodySignature"):
                raise Refused("missing_signature")
            payload, signed = self._body_variant(body, secrets)
        else:
            version = declared if declared is not None else ("2" if v2 is not None else "1")
            if version == "2" and v2 is None:
                raise Refused("missing_signature")
            if version == "1" and sha is None and kec is None:
                raise Refused("missing_signature")
            if version not in ("1", "2"):
                raise Refused("unsupported_version")
            if version == "2":
                expected = _digest(v2, "sha256=")
                if not any(hmac.compare_digest(hmac.new(k, body, hashlib.sha256).digest(), expected) for k in secrets):
                    raise Refused("signature_mismatch")
            else:
                sd = _digest(sha, "svc_sec_sha256_") if sha is not None else None
                kd = _digest(kec, "svc_sec_keccak256_") if kec is not None else None
                if not _v1_matches(secrets, body, sd, kd):
                    raise Refused("signature_mismatch")
            payload, signed = _json_object(body), body
            if payload is None:
                raise Refused("invalid_payload")
        fmt = "v5" if payload.get("version") == "v5" else "v4"
        if fmt in self.payload_validators and not self.payload_validators[fmt].is_valid(payload):
            raise Refused("invalid_payload")
        ts = payload.get("timestamp")
        if isinstance(ts, bool) or not isinstance(ts, (int, float)) or ts < 0:
            raise Refused("invalid_payload")
        if fmt != "v5" and ts < 1e12:  # an older payload's timestamp may be in seconds
            ts *= 1000
        if abs(d["now"] - ts) > self.tolerance_ms:
            raise Refused("timestamp_out_of_tolerance")
        key = hashlib.sha256(signed).hexdigest()
        if key in self.seen:
            raise Refused("replayed")
        self.seen.add(key)

    def _body_variant(self, body: bytes, secrets: list[bytes]):
        parsed = _json_object(body)
        sig = parsed.get("signature") if parsed is not None else None
        if not isinstance(sig, dict):
            raise Refused("missing_signature")
        if "sha256" not in sig and "keccak256" not in sig:
            raise Refused("missing_signature")
        as_text = lambda v: v if isinstance(v, str) else ""
        sd = _digest(as_text(sig["sha256"]), "svc_sec_sha256_") if "sha256" in sig else None
        kd = _digest(as_text(sig["keccak256"]), "svc_sec_keccak256_") if "keccak256" in sig else None
        if sig.get("version") not in (1, "1"):
            raise Refused("unsupported_version")
        rest = {k: v for k, v in parsed.items() if k != "signature"}
        signed = json.dumps(rest, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        if not _v1_matches(secrets, signed, sd, kd):
            raise Refused("signature_mismatch")
        return rest, signed


def _json_object(body: bytes):
    try:
        value = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


# --- The run -------------------------------------------------------------------------------------------
def load(path: str):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    gen = os.path.join(args.root, "generated")
    schema_of = lambda sid: load(os.path.join(gen, "schemas", f"{sid}.json"))
    try:
        requests = load(os.path.join(gen, "conformance", "requests.json"))
        webhooks = load(os.path.join(gen, "conformance", "webhooks.json"))
        schemas = {"v5": schema_of("v5.WebhookPayload"), "v4": schema_of("v4.WebhookPayload")}
    except (OSError, ValueError) as e:
        print(f"run_conformance.py: cannot read the conformance files under {gen}: {e}", file=sys.stderr)
        return 2
    report = {part: {"total": 0, "agreed": 0, "skipped": 0, "disagreed": []} for part in ("requests", "webhooks")}

    validators: dict = {}
    for c in requests["cases"]:
        if Draft202012Validator is None:
            report["requests"]["skipped"] += 1
            continue
        v = validators.get(c["schema"])
        if v is None:
            v = validators[c["schema"]] = Draft202012Validator(schema_of(c["schema"]), format_checker=Draft202012Validator.FORMAT_CHECKER)
        report["requests"]["total"] += 1
        if v.is_valid(c["payload"]) == c["valid"]:
            report["requests"]["agreed"] += 1
        else:
            report["requests"]["disagreed"].append(c["id"])

    tol = webhooks["toleranceMs"]

    def check(name: str, verifier: Verifier, d: dict) -> None:
        want = d["expect"]
        if Draft202012Validator is None and want.get("reason") == "invalid_payload":
            # Rests on the payload's schema; refused, it leaves no state behind, so a sequence goes on.
            report["webhooks"]["skipped"] += 1
            return
        verdict, reason = verifier.verify(d)
        report["webhooks"]["total"] += 1
        if verdict == want["verdict"] and reason == want.get("reason"):
            report["webhooks"]["agreed"] += 1
        else:
            report["webhooks"]["disagreed"].append(f"{name}: want {want} got {verdict} {reason}")

    for c in webhooks["cases"]:
        check(c["id"], Verifier(schemas, tol), c)
    for s in webhooks["sequences"]:
        verifier = Verifier(schemas, tol)
        for i, step in enumerate(s["steps"]):
            check(f"{s['id']} step {i}", verifier, step)

    ok = not report["requests"]["disagreed"] and not report["webhooks"]["disagreed"]
    if args.json:
        print(json.dumps(report))
    else:
        for part in ("requests", "webhooks"):
            r = report[part]
            skipped = f"; {r['skipped']} skipped: {NO_JSONSCHEMA}" if r["skipped"] else ""
            print(f"{part}: {r['agreed']} of {r['total']} agree{skipped}")
            for d in r["disagreed"]:
                print(f"  DISAGREE {d}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
