"""tools/gpu-run.sh cut by its call's limit still packs what its steps left.

A device call ends the script by SIGTERM (`timeout N bash tools/gpu-run.sh
OUT`); the steps run in a process group of their own, which the script ends
before it packs $OUT into bundle.tar.gz (the device tool brings back at most
8 files). Here the GPU machine's tools are stubs on PATH: the build step
(meson or ninja, whichever the build directory calls for) writes a step's
files into OUT and then hangs, as a sweep past the limit does. Checked: the
bundle holds every file but run.log, the hung step is gone, and a run that
ends by itself packs the same way and keeps its exit status. No GPU needed.
"""
import os
import signal
import subprocess
import sys
import tarfile
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tools", "gpu-run.sh")

# The build step's stub: STUB_MODE hang (files, then sleep), stubborn (the
# same, ignoring SIGTERM), ok (nothing, exit 0). It records its pid.
BUILD_STUB = """#!/usr/bin/env bash
[ "$STUB_MODE" = ok ] && exit 0
for i in 1 2 3 4 5 6 7 8 9; do echo "step $i" > "$STUB_OUT/step-$i.log"; done
echo $$ > "$STUB_PID"
if [ "$STUB_MODE" = stubborn ]; then
  exec python3 -c 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(120)'
fi
exec sleep 120
"""


def make_stubs(tmp):
    bin_dir = os.path.join(tmp, "bin")
    os.mkdir(bin_dir)
    stubs = {
        "nvidia-smi": "#!/bin/sh\necho 'stub GPU, 1980 MHz'\n",
        "nvcc": "#!/bin/sh\necho 'Build cuda_stub'\n",
        "meson": BUILD_STUB,
        "ninja": BUILD_STUB,
    }
    for name, text in stubs.items():
        path = os.path.join(bin_dir, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)
    return bin_dir


def run(tmp, mode, limit_s):
    out = os.path.join(tmp, "out-" + mode)
    os.mkdir(out)
    env = dict(os.environ)
    stub_dir = os.path.join(tmp, "stubs-" + mode)
    os.mkdir(stub_dir)
    env["PATH"] = make_stubs(stub_dir) + os.pathsep + env["PATH"]
    env.update(STUB_MODE=mode, STUB_OUT=out, STUB_PID=os.path.join(tmp, mode + ".pid"),
               CONVT_CONFIGS="none", CONVT_SKIP_TESTS="1", CONVT_BUNDLE="auto",
               CONVT_CUDNN="system")
    for var in ("CONVT_GPU_RUN_STEPS", "CONVT_BEFORE", "CONVT_SANITIZE", "CONVT_GPU_TEST_FUNCS"):
        env.pop(var, None)
    start = time.monotonic()
    with open(os.path.join(out, "run.log"), "w") as log:
        p = subprocess.run(["timeout", "-s", "TERM", str(limit_s), "bash", SCRIPT, out],
                           stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    return p.returncode, time.monotonic() - start, out


def bundle_members(out):
    path = os.path.join(out, "bundle.tar.gz")
    if not os.path.exists(path):
        print(f"no bundle.tar.gz in {out}: {sorted(os.listdir(out))}")
        return set()
    with tarfile.open(path) as t:
        return {os.path.normpath(n) for n in t.getnames()} - {"."}


def gone(pid_file):
    pid = int(open(pid_file).read())
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    return False


def main():
    failures = []

    def check(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        # a step that hangs past the limit: cut, ended, packed
        rc, took, out = run(tmp, "hang", 3)
        log = open(os.path.join(out, "run.log")).read()
        check(rc == 124, f"cut by the limit: timeout's status 124 (got {rc})")
        members = bundle_members(out)
        steps = {f"step-{i}.log" for i in range(1, 10)}
        check(steps <= members, f"the hung step's 9 files are in the bundle ({sorted(members)})")
        check("device.txt" in members, "device.txt is in the bundle")
        check("run.log" not in members, "run.log stays out of the bundle (the caller writes it)")
        check(sorted(os.listdir(out)) == ["bundle.tar.gz", "run.log"],
              f"OUT holds the bundle and run.log only: {sorted(os.listdir(out))}")
        check("cut by a signal" in log, "run.log says the run was cut")
        check(gone(os.path.join(tmp, "hang.pid")), "the hung step was ended")
        check(took < 15, f"the call came back within 15 s of its 3-s limit ({took:.1f} s)")

        # a step that ignores SIGTERM: killed after the grace period
        rc, took, out = run(tmp, "stubborn", 3)
        check(rc == 124, f"stubborn step: status 124 (got {rc})")
        check({f"step-{i}.log" for i in range(1, 10)} <= bundle_members(out),
              "stubborn step: its files are in the bundle")
        check(gone(os.path.join(tmp, "stubborn.pid")), "the step that ignored SIGTERM was killed")
        check(took < 25, f"stubborn step: back within 25 s ({took:.1f} s)")

        # a run that ends by itself: its status kept, packed where asked
        rc, took, out = run(tmp, "ok", 60)
        check(rc == 0, f"an uncut run keeps its exit status 0 (got {rc})")
        check(not os.path.exists(os.path.join(out, "bundle.tar.gz")),
              "an uncut run with 8 files or fewer is not packed (CONVT_BUNDLE=auto)")
        check("device.txt" in os.listdir(out), "an uncut run leaves device.txt")
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
