#!/usr/bin/env python3
"""Proves verispec's published outputs with Python's own tools (issue 6, part 2).

1. generated/openapi.json is a valid OpenAPI 3.1 document for `openapi_spec_validator`, and every
   `example` of a media type in it is valid for `jsonschema` against its schema.
2. Every fixture of the validator tests (test/fixtures/payloads/*.json) and of
   test/fixtures/python-extra/*.json is validated with `jsonschema` (Draft202012Validator, with its
   format checker) against generated/schemas/<schema>.json. For every fixture whose rule JSON Schema
   can express (`jsonSchemaExpressible` true), the verdict must equal the fixture's `valid` (the
   TypeScript validators' verdict). The others are listed by name with both verdicts.

A fixture file holds one fixture object or an array of them:
  { "name"?, "schema": "<id>", "data": ..., "valid": bool, "errors": [...], "jsonSchemaExpressible": bool }

Usage: python3 test/python/check_outputs.py [--root DIR] [--json]
Exit 0 when everything agrees; 1 on a disagreement or an invalid document; 2 when a required Python
package is missing (the message names it) or the inputs are unusable.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import sys

FIXTURE_DIRS = ("test/fixtures/payloads", "test/fixtures/python-extra")

# Where Python's jsonschema, used as a Python team would use it, gives another verdict than ECMA-262
# validators (Ajv, the generated validators) on a rule JSON Schema does express. A fixture names one in
# `pythonDifference`; the difference is then reported (and pinned by test/outputs/python.test.ts), not
# counted as agreement. README.md ("For other languages") tells Python users what to do about each.
KNOWN_DIFFERENCES = {
    "pattern-dollar": "jsonschema runs `pattern` with Python re.search, whose `$` also matches before a final "
    "newline: a value that ends in \\n passes `^...$` (ECMA-262 and Go RE2 reject it).",
    "format-uri": "jsonschema asserts `format: uri` only when the rfc3987 (or rfc3986-validator) package "
    "is installed; without it any string passes.",
}


def fail_missing(package: str, debian: str) -> None:
    print(
        f"check_outputs.py: MISSING PYTHON PACKAGE {package!r}: this check cannot run without it. "
        f"Install it (Debian: apt-get install {debian}; or pip install {package}).",
        file=sys.stderr,
    )
    sys.exit(2)


try:
    import jsonschema
    from jsonschema import Draft202012Validator
except ImportError:
    fail_missing("jsonschema", "python3-jsonschema")

try:
    from openapi_spec_validator import validate as validate_openapi
except ImportError:
    fail_missing("openapi-spec-validator", "python3-openapi-spec-validator")

from importlib.metadata import version as package_version

try:
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012
except ImportError:  # jsonschema < 4.18 has no `referencing`; the examples check is then skipped loudly
    Registry = None  # type: ignore[assignment]


def load_json(path: str):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load_fixtures(root: str) -> tuple[list[dict], list[str]]:
    """Every fixture with a display name; and the fixture directories that exist."""
    fixtures: list[dict] = []
    found_dirs: list[str] = []
    for rel in FIXTURE_DIRS:
        folder = os.path.join(root, rel)
        if not os.path.isdir(folder):
            continue
        found_dirs.append(rel)
        for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
            content = load_json(path)
            items = content if isinstance(content, list) else [content]
            base = os.path.relpath(path, root)
            for i, item in enumerate(items):
                if not isinstance(item, dict) or "schema" not in item or "data" not in item or "valid" not in item:
                    raise ValueError(f"{base}[{i}]: not a fixture (needs schema, data, valid)")
                name = item.get("name") or (base if len(items) == 1 else f"{base}[{i}]")
                fixtures.append({**item, "_name": f"{name}" if name.startswith(base) else f"{base}: {name}"})
    return fixtures, found_dirs


def check_openapi(root: str, report: dict) -> list[str]:
    problems: list[str] = []
    doc = load_json(os.path.join(root, "generated", "openapi.json"))
    try:
        validate_openapi(doc)
        report["openapi"] = {"valid": True, "validator": f"openapi-spec-validator {package_version('openapi-spec-validator')}"}
    except Exception as err:  # the library raises its own OpenAPIValidationError
        report["openapi"] = {"valid": False, "error": str(err)[:2000]}
        problems.append(f"openapi_spec_validator: generated/openapi.json is invalid: {str(err)[:2000]}")
    if Registry is None:
        problems.append("jsonschema has no `referencing` package (jsonschema < 4.18): cannot check the OpenAPI examples")
        return problems
    # The examples of every media type, validated against their schemas inside the document.
    registry = Registry().with_resource("urn:verispec:openapi", Resource(contents=doc, specification=DRAFT202012))
    checked = 0
    sections = [("paths", doc.get("paths", {})), ("webhooks", doc.get("webhooks", {}))]
    for section, items in sections:
        for path, item in items.items():
            for method, op in item.items():
                if not isinstance(op, dict):
                    continue
                bodies = [("requestBody", op.get("requestBody") or {})]
                bodies += [(f"responses/{s}", r) for s, r in (op.get("responses") or {}).items()]
                for where, body in bodies:
                    for media, content in (body.get("content") or {}).items():
                        if "example" not in content or "schema" not in content:
                            continue
                        schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "urn:verispec:openapi" + content["schema"]["$ref"]}
                        validator = Draft202012Validator(schema, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER)
                        errors = sorted(validator.iter_errors(content["example"]), key=lambda e: list(e.absolute_path))
                        checked += 1
                        if errors:
                            problems.append(f"example of {section} {path} {method} {where} {media} is invalid: {errors[0].message[:300]}")
    report["openapiExamples"] = checked
    return problems


def check_fixtures(root: str, report: dict) -> list[str]:
    problems: list[str] = []
    fixtures, found_dirs = load_fixtures(root)
    report["fixtureDirs"] = found_dirs
    validators: dict[str, Draft202012Validator] = {}
    agreed: list[str] = []
    disagreed: list[str] = []
    not_expressible: list[dict] = []
    known: list[dict] = []
    for fx in fixtures:
        schema_id = fx["schema"]
        if schema_id not in validators:
            path = os.path.join(root, "generated", "schemas", f"{schema_id}.json")
            if not os.path.exists(path):
                problems.append(f"{fx['_name']}: no schema generated/schemas/{schema_id}.json")
                continue
            schema = load_json(path)
            Draft202012Validator.check_schema(schema)
            validators[schema_id] = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
        errors = list(validators[schema_id].iter_errors(fx["data"]))
        verdict = not errors
        expected = bool(fx["valid"])
        if fx.get("jsonSchemaExpressible", True) is False:
            not_expressible.append({"name": fx["_name"], "schema": schema_id, "typescript": expected, "python": verdict})
        elif fx.get("pythonDifference") in KNOWN_DIFFERENCES and verdict != expected:
            known.append({"name": fx["_name"], "difference": fx["pythonDifference"], "typescript": expected, "python": verdict})
        elif verdict == expected:
            agreed.append(fx["_name"])
        else:
            detail = f"; jsonschema says: {errors[0].message[:300]} at {list(errors[0].absolute_path)}" if errors else ""
            disagreed.append(fx["_name"])
            problems.append(f"{fx['_name']}: TypeScript validators say {'valid' if expected else 'invalid'}, jsonschema says {'valid' if verdict else 'invalid'} (schema {schema_id}){detail}")
    report["fixtures"] = {
        "total": len(fixtures),
        "expressible": len(agreed) + len(disagreed),
        "agreed": len(agreed),
        "disagreed": disagreed,
        "notExpressible": not_expressible,
        "knownDifferences": known,
        "schemas": len(validators),
    }
    if not fixtures:
        problems.append(f"no fixtures found under {', '.join(FIXTURE_DIRS)}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object (last line)")
    args = parser.parse_args()
    report: dict = {"jsonschema": package_version("jsonschema"), "python": sys.version.split()[0]}
    problems = check_openapi(args.root, report) + check_fixtures(args.root, report)
    report["problems"] = problems
    f = report.get("fixtures", {})
    print(f"Python {report['python']}, jsonschema {report['jsonschema']}, {report.get('openapi', {}).get('validator', 'openapi-spec-validator')}")
    print(f"openapi_spec_validator: generated/openapi.json {'valid' if report.get('openapi', {}).get('valid') else 'INVALID'}; {report.get('openapiExamples', 0)} media-type examples valid for jsonschema")
    print(f"fixtures: {f.get('total', 0)} in {', '.join(report.get('fixtureDirs', [])) or '(no fixture folder)'} against {f.get('schemas', 0)} schemas")
    print(f"  expressible in JSON Schema: {f.get('expressible', 0)}; same verdict as the TypeScript validators: {f.get('agreed', 0)}; different: {len(f.get('disagreed', []))}")
    print(f"  not expressible in JSON Schema (listed, not compared): {len(f.get('notExpressible', []))}")
    for n in f.get("notExpressible", []):
        print(f"    - {n['name']} ({n['schema']}): TypeScript {'valid' if n['typescript'] else 'invalid'}, jsonschema {'valid' if n['python'] else 'invalid'}")
    print(f"  known differences of Python jsonschema (pinned, not agreement): {len(f.get('knownDifferences', []))}")
    for k in f.get("knownDifferences", []):
        print(f"    - {k['name']}: TypeScript {'valid' if k['typescript'] else 'invalid'}, jsonschema {'valid' if k['python'] else 'invalid'}; {k['difference']}: {KNOWN_DIFFERENCES[k['difference']]}")
    for p in problems:
        print(f"PROBLEM: {p}")
    print("OK" if not problems else f"FAILED: {len(problems)} problem(s)")
    if args.json:
        print(json.dumps(report, sort_keys=True))
    return 0 if not problems else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, ValueError, jsonschema.exceptions.SchemaError) as err:
        print(f"check_outputs.py: {err}", file=sys.stderr)
        sys.exit(2)
