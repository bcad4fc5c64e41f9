"""tools/gpu-run.sh cut by its call's limit still packs what its steps left.

A device call ends the script by SIGTERM (`timeout N bash tools/gpu-run.sh
OUT`, which signals its own process group); the steps run in a session of
their own, which the script ends before it packs $OUT into bundle.tar.gz
(the device tool brings back at most 8 files). Here the script runs from a
copy in a temporary tree (no .deps, no build directory of the checkout),
the GPU machine's tools are stubs on PATH (pkill and pgrep fail, as where
procps is missing), and no CONVT_* variable of the caller leaks in. The build step's stub writes a step's files into OUT and
then hangs, as a sweep past the limit does: directly, under `timeout` (a
process group of its own, as every sweep, sanitizer and test step runs),
or ignoring SIGTERM. Checked: the bundle holds every file but run.log,
nothing the steps started is left running (also where the script itself
is SIGKILL'd: the steps' watchdog), and a run that ends by itself keeps
its exit status. No GPU needed.
"""
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tools", "gpu-run.sh")

# The hanging step: a Python process whose arguments carry the test's marker,
# so that a survivor can be found in /proc. IGNORE_TERM=1: it ignores SIGTERM.
# It says it is ready only then, so that a cut never lands on the stub's shell.
HANG = ("import os, signal, sys, time\n"
        "if os.environ.get('IGNORE_TERM') == '1': signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "open(os.environ['STUB_READY'], 'w').close()\n"
        "time.sleep(120)\n")

# The build step's stub (meson or ninja, whichever the build directory calls
# for): STUB_MODE hang (or killed: the same, its parent then SIGKILL'd),
# hang_timeout (under `timeout`), stubborn (ignores SIGTERM), ok (nothing,
# exit 0).
BUILD_STUB = """#!/usr/bin/env bash
[ "$STUB_MODE" = ok ] && exit 0
for i in 1 2 3 4 5 6 7 8 9; do echo "step $i" > "$STUB_OUT/step-$i.log"; done
case "$STUB_MODE" in
  hang|killed) exec python3 -c "$STUB_HANG" "$STUB_MARKER" ;;
  hang_timeout) exec timeout 120 python3 -c "$STUB_HANG" "$STUB_MARKER" ;;
  stubborn) IGNORE_TERM=1 exec python3 -c "$STUB_HANG" "$STUB_MARKER" ;;
esac
"""


def make_tree(tmp, mode):
    """A tree holding tools/gpu-run.sh only, and a folder of stubs."""
    tree = os.path.join(tmp, "tree-" + mode)
    os.makedirs(os.path.join(tree, "tools"))
    shutil.copy(SCRIPT, os.path.join(tree, "tools", "gpu-run.sh"))
    bin_dir = os.path.join(tmp, "bin-" + mode)
    os.mkdir(bin_dir)
    stubs = {
        "nvidia-smi": "#!/bin/sh\necho 'stub GPU, 1980 MHz'\n",
        "nvcc": "#!/bin/sh\necho 'Build cuda_stub'\n",
        "meson": BUILD_STUB,
        "ninja": BUILD_STUB,
        # procps may be missing (minimal images): the script must not need it
        "pkill": "#!/bin/sh\nexit 127\n",
        "pgrep": "#!/bin/sh\nexit 127\n",
    }
    for name, text in stubs.items():
        path = os.path.join(bin_dir, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)
    return tree, bin_dir


def survivors(marker):
    """Processes, not zombies, whose arguments hold the marker."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in args and state != "Z":
            found.append(int(pid))
    return found


def run(tmp, mode, cut, sig=signal.SIGTERM):
    """gpu-run.sh in its own process group; with cut, sig to that group
    (as `timeout` sends SIGTERM) once the build step has started."""
    tree, bin_dir = make_tree(tmp, mode)
    out = os.path.join(tmp, "out-" + mode)
    os.mkdir(out)
    marker = f"convt-gpu-run-cut-{os.getpid()}-{mode}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONVT_")}
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "/usr/bin:/bin")
    env.update(STUB_MODE=mode, STUB_OUT=out, STUB_READY=os.path.join(tmp, mode + ".ready"),
               STUB_HANG=HANG, STUB_MARKER=marker, CONVT_CONFIGS="none", CONVT_SKIP_TESTS="1",
               CONVT_BUNDLE="auto", CONVT_CUDNN="system")
    start = time.monotonic()
    with open(os.path.join(out, "run.log"), "w") as log:
        p = subprocess.Popen(["bash", os.path.join(tree, "tools", "gpu-run.sh"), out],
                             stdout=log, stderr=subprocess.STDOUT, env=env, cwd=tmp,
                             start_new_session=True)
        if cut:
            while not os.path.exists(env["STUB_READY"]) and time.monotonic() - start < 60:
                time.sleep(0.05)
            os.killpg(p.pid, sig)
        try:
            rc = p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            rc = p.wait()
    took = time.monotonic() - start
    left = survivors(marker)
    for _ in range(50):  # a SIGKILL'd parent: the steps' watchdog ends them within seconds
        if not left or sig != signal.SIGKILL:
            break
        time.sleep(0.2)
        left = survivors(marker)
    for pid in left:  # leave no stray process behind, whatever the verdict
        os.kill(pid, signal.SIGKILL)
    return rc, took, out, left


def bundle_members(out):
    path = os.path.join(out, "bundle.tar.gz")
    if not os.path.exists(path):
        print(f"no bundle.tar.gz in {out}: {sorted(os.listdir(out))}")
        return set()
    with tarfile.open(path) as t:
        return {os.path.normpath(n) for n in t.getnames()} - {"."}


def main():
    failures = []

    def check(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            failures.append(what)

    steps = {f"step-{i}.log" for i in range(1, 10)}
    with tempfile.TemporaryDirectory() as tmp:
        for mode, grace in (("hang", 15), ("hang_timeout", 15), ("stubborn", 25)):
            rc, took, out, left = run(tmp, mode, cut=True)
            log = open(os.path.join(out, "run.log")).read()
            members = bundle_members(out)
            check(rc == 124, f"{mode}: the cut script exits 124 (got {rc})")
            check(steps <= members, f"{mode}: the step's 9 files are in the bundle ({sorted(members)})")
            check("device.txt" in members, f"{mode}: device.txt is in the bundle")
            check("run.log" not in members, f"{mode}: run.log stays out (the caller writes it)")
            check(sorted(os.listdir(out)) == ["bundle.tar.gz", "run.log"],
                  f"{mode}: OUT holds the bundle and run.log only: {sorted(os.listdir(out))}")
            check("cut by a signal" in log, f"{mode}: run.log says the run was cut")
            check(not left, f"{mode}: nothing the steps started is left running ({left})")
            check(took < grace, f"{mode}: back within {grace} s ({took:.1f} s)")

        # the parent killed outright (no trap runs): the steps' watchdog
        # ends them, since they left its process group
        rc, took, out, left = run(tmp, "killed", cut=True, sig=signal.SIGKILL)
        check(rc == -signal.SIGKILL, f"killed: the parent died of SIGKILL ({rc})")
        check(not left, f"killed: the watchdog ended the steps ({left})")
        # a run that ends by itself: its status kept, packed only where asked
        rc, took, out, left = run(tmp, "ok", cut=False)
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
