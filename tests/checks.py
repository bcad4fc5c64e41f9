"""The Python tests' one way to assert: check(name, cond, detail) counts and
says what failed; done(label) prints "<label> tests: N passed, N failed"
and exits 1 if any failed."""
import sys

passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name}: {detail}")


def done(label):
    print(f"{label} tests: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
