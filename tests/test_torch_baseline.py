#!/usr/bin/env python3
"""tools/torch_baseline.py without PyTorch or a GPU: its shape keys equal
convt-bench's on every committed config (and on sweeps and random shapes),
its config errors read as convt-bench's, its statistics, batching, round
interleaving and validation verdict on synthetic data, the records it builds,
its command line without PyTorch, and (once committed from an H100)
tests/data/torch-baseline-example.json. Exit 0 when every test passes or is
skipped; ends with "torch_baseline: N passed, N failed, N skipped"."""
import glob
import importlib.util
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import unittest

ROOT = os.environ.get("CONVT_SOURCE_ROOT") or os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))
BENCH = os.environ.get("CONVT_BENCH", "")
SCRIPT = os.path.join(ROOT, "tools", "torch_baseline.py")
EXAMPLE = os.path.join(ROOT, "tests", "data", "torch-baseline-example.json")

_spec = importlib.util.spec_from_file_location("torch_baseline", SCRIPT)
tb = importlib.util.module_from_spec(_spec)
_had_torch = "torch" in sys.modules
sys.modules["torch_baseline"] = tb  # dataclasses look their module up
_spec.loader.exec_module(tb)
IMPORTED_TORCH = "torch" in sys.modules and not _had_torch

PLAN_LINE = re.compile(r"^(\S.*?)  \((\S+)\)  ([0-9.]+) GFLOP, ([0-9.]+) GB$")


def bench_available():
    return bool(BENCH) and os.access(BENCH, os.X_OK)


def bench_plan(config_path):
    """(returncode, [(name, key, gflop, gb)], stderr) of convt-bench's CPU dry run."""
    p = subprocess.run([BENCH, "--config", config_path, "--dry-run", "--backend", "cpu"],
                       capture_output=True, text=True, timeout=300)
    shapes = [m.groups() for m in map(PLAN_LINE.match, p.stdout.splitlines()) if m]
    return p.returncode, shapes, p.stderr


def script_plan(cfg):
    return [(p.name, tb.problem_key(p), f"{tb.flops(p) / 1e9:.3f}",
             f"{tb.min_bytes(p) / 1e9:.3f}") for p in cfg.shapes]


def run_script(*args, env_extra=None):
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                          timeout=120, env=env)


def settings(**kw):
    s = tb.MeasureSettings()
    for k, v in kw.items():
        setattr(s, k, v)
    return s


class Keys(unittest.TestCase):
    """1. the script's shape keys equal convt-bench's."""

    def setUp(self):
        if not bench_available():
            self.skipTest(f"CONVT_BENCH ({BENCH or 'unset'}) is not an executable convt-bench")

    def test_every_committed_config(self):
        configs = sorted(glob.glob(os.path.join(ROOT, "configs", "*.json")))
        self.assertTrue(configs, "no configs/*.json")
        checked, rejected = 0, []
        for path in configs:
            rc, theirs, err = bench_plan(path)
            if rc != 0:
                rejected.append(f"{os.path.basename(path)} (exit {rc}: {err.strip()[:120]})")
                continue
            ours = script_plan(tb.load_config(path))
            self.assertEqual(len(theirs), len(ours), path)
            for a, b in zip(theirs, ours):
                self.assertEqual(a, b, f"{path}: convt-bench {a}, torch_baseline {b}")
            checked += len(ours)
        if rejected:
            print(f"\nconvt-bench's CPU dry run rejected (not compared): {', '.join(rejected)}",
                  file=sys.stderr)
        self.assertGreater(checked, 0, "no config could be compared")

    def test_sweeps_and_random(self):
        cfg = {
            "seed": 5,
            "shapes": [{"n": 1, "cin": 6, "cout": 9, "groups": 3, "in": 7, "dims": 3, "k": [1, 2, 3],
                        "stride": 2, "pad": [0, 1, 0], "out_pad": [1, 0, 1], "dil": 2, "bias": True}],
            "sweeps": [{"name": "sw", "base": {"name": "ignored", "n": 2, "cin": 4, "cout": 8,
                                              "in": [9, 5], "k": 3},
                        "axes": {"stride": [1, 2, [3, 2]], "bias": [False, True],
                                 "pad": [0, [1, 2]]}},
                       {"base": {"n": 1, "cin": 2, "cout": 2, "in": [30], "k": [4], "stride": 2},
                        "axes": {"dil": [1, 3], "out_pad": [0, 1]}}],
            "random": {"count": 60, "seed": 11, "max_channels": 24, "dims": [1, 3]},
        }
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "sweeps.json")
            with open(path, "w") as f:
                json.dump(cfg, f)
            rc, theirs, err = bench_plan(path)
            self.assertEqual(rc, 0, err)
            ours = script_plan(tb.load_config(path))
        self.assertEqual(len(ours), 1 + 12 + 4 + 60)
        self.assertEqual(theirs, ours)

    def test_measure_errors_read_as_convt_benchs(self):
        bad_measures = [{"prune": 0.5}, {"prune": 2, "rounds": 1}, {"prune": -1},
                        {"prune": "1.5"},
                        # two errors: the first convt-bench reports is the one reported
                        {"prune": 0.5, "min_samples": 5, "max_samples": 2}]
        with tempfile.TemporaryDirectory() as d:
            for i, measure in enumerate(bad_measures):
                path = os.path.join(d, f"bad{i}.json")
                with open(path, "w") as f:
                    json.dump({"measure": measure,
                               "shapes": [{"n": 1, "cin": 1, "cout": 1, "in": [1], "k": 1}]}, f)
                p = subprocess.run([BENCH, "--config", path, "--dry-run", "--backend", "cpu"],
                                   capture_output=True, text=True, timeout=60)
                self.assertEqual(p.returncode, 2, p.stderr)
                theirs = p.stderr.strip().splitlines()[-1]
                q = run_script(path, "--dry-run")
                self.assertEqual(q.returncode, 2, q.stderr)
                ours = q.stderr.strip().splitlines()[-1]
                self.assertEqual(ours, "torch_baseline: " + theirs[len("convt-bench: "):])
                self.assertIn("measure.prune", ours)

    def test_config_errors_read_as_convt_benchs(self):
        bad_shapes = [
            {"n": 1, "cin": 4, "cout": 4, "in": [8, 8], "k": 3, "stride": [1, 0]},
            {"n": 1, "cin": 4, "cout": 6, "groups": 4, "in": [8], "k": 3},
            {"n": 1, "cin": 4, "cout": 4, "in": [8], "k": 3, "strides": 2},
            {"n": 1, "cin": 4, "cout": 4, "in": [8, 8], "k": [3]},
            {"n": 1, "cin": 4, "cout": 4, "in": [8], "k": 3, "stride": 2, "out_pad": 2},
            {"n": 1, "cin": 4, "cout": 4, "in": [2], "k": 1, "pad": 3},
            {"n": 1.5, "cin": 4, "cout": 4, "in": [8], "k": 3},
            {"n": 1, "cin": 4, "cout": 4, "in": [8], "k": 3, "bias": 1},
            {"cin": 4, "cout": 4, "in": [8], "k": 3},
            {"n": 1, "cin": 4, "cout": 4, "in": [8, 8], "dims": 3, "k": 3},
            {"n": 1, "cin": 4, "cout": 4, "in": 8, "k": 3},
            {"n": True, "cin": 4, "cout": 4, "in": [8], "k": 3},
        ]
        with tempfile.TemporaryDirectory() as d:
            for i, shape in enumerate(bad_shapes):
                path = os.path.join(d, f"bad{i}.json")
                with open(path, "w") as f:
                    json.dump({"shapes": [{"n": 1, "cin": 1, "cout": 1, "in": [1], "k": 1}, shape]},
                              f)
                p = subprocess.run([BENCH, "--config", path, "--dry-run", "--backend", "cpu"],
                                   capture_output=True, text=True, timeout=60)
                self.assertEqual(p.returncode, 2, p.stderr)
                theirs = p.stderr.strip().splitlines()[-1]
                self.assertTrue(theirs.startswith("convt-bench: "), theirs)
                q = run_script(path, "--dry-run")
                self.assertEqual(q.returncode, 2, q.stderr)
                ours = q.stderr.strip().splitlines()[-1]
                self.assertEqual(ours, "torch_baseline: " + theirs[len("convt-bench: "):])
                self.assertIn(path, ours)
                self.assertIn("shapes[1]", ours)


class Statistics(unittest.TestCase):
    """2. the statistics on synthetic samples."""

    def test_medians(self):
        self.assertEqual(tb.timing_from_samples([3.0, 1.0, 2.0])["median_ms"], 2.0)
        self.assertEqual(tb.timing_from_samples([4.0, 1.0, 3.0, 2.0])["median_ms"], 2.5)
        t = tb.timing_from_rounds([[5.0, 1.0, 9.0], [2.0, 8.0]])
        self.assertEqual(t["median_ms"], 5.0)
        self.assertEqual(t["round_median_ms"], [5.0, 5.0])
        self.assertEqual((t["min_ms"], t["max_ms"], t["samples"], t["rounds"]), (1.0, 9.0, 5, 2))
        self.assertAlmostEqual(t["mean_ms"], 5.0)
        self.assertAlmostEqual(t["stddev_ms"], statistics.stdev([5, 1, 9, 2, 8]))

    def test_noise_of_two_rounds_by_hand(self):
        # round medians 12 and 22; deviations -2..2 in each round, so their
        # quartiles are -1 and 1 (IQR 2); the median of all 10 samples is 17
        t = tb.timing_from_rounds([[10.0, 11.0, 12.0, 13.0, 14.0], [24.0, 20.0, 22.0, 21.0, 23.0]])
        self.assertEqual(t["median_ms"], 17.0)
        self.assertEqual(t["round_median_ms"], [12.0, 22.0])
        within = 2 / 1.349 / 17
        between = math.sqrt(((12 - 17) ** 2 + (22 - 17) ** 2) / 1) / 17
        self.assertAlmostEqual(t["noise_within"], within, places=15)
        self.assertAlmostEqual(t["noise_between"], between, places=15)
        self.assertAlmostEqual(t["noise"], math.sqrt(within ** 2 + between ** 2), places=15)

    def test_one_round_noise_is_iqr_over_median(self):
        t = tb.timing_from_samples([1.0, 2.0, 3.0, 4.0, 5.0])
        # quartiles by linear interpolation: 2 and 4
        self.assertAlmostEqual(t["noise"], 2 / 1.349 / 3, places=15)
        t = tb.timing_from_rounds([[1.0, 2.0, 3.0, 4.0, 5.0]])
        self.assertEqual(t["noise_between"], 0.0)
        self.assertAlmostEqual(t["noise"], 2 / 1.349 / 3, places=15)

    def test_batch_size(self):
        self.assertEqual(tb.batch_size([0.030] * 5, 20), 1)      # 30 us: one launch
        self.assertEqual(tb.batch_size([0.005] * 5, 20), 64)     # 200/5 = 40 -> 64
        self.assertEqual(tb.batch_size([0.00001] * 5, 20), 128)  # capped
        self.assertEqual(tb.batch_size([0.005] * 5, 0), 1)       # batching off
        # the median of the probes decides, not an outlier
        self.assertEqual(tb.batch_size([0.005, 0.005, 0.005, 0.5, 0.9], 20), 64)

    def test_batched_samples_are_divided(self):
        acc = tb.Sampling(settings(warmup=2, min_samples=8, max_samples=8, rounds=2,
                                   batch_below_us=20, target_noise=0.5, max_time_s=100))
        calls = {"launch": 0, "sample": []}

        def launch():
            calls["launch"] += 1

        def sample(launches, held):
            calls["sample"].append(launches)
            return 0.004 * launches  # 4 us per launch

        tb.measure_round(acc, launch, sample, lambda: None)
        tb.measure_round(acc, launch, sample, lambda: None)
        self.assertEqual(acc.batch, 64)
        self.assertEqual(calls["sample"][:5], [1] * 5)          # the probes
        self.assertTrue(all(k == 64 for k in calls["sample"][5:]))
        self.assertEqual(calls["launch"], 2 + 1)                 # warm-up: 2, then 1
        self.assertEqual([len(r) for r in acc.rounds], [4, 4])
        for r in acc.rounds:
            for ms in r:
                self.assertAlmostEqual(ms, 0.004)
        t = tb.timing_record(acc, 2, "m")
        self.assertEqual(t["launches_per_sample"], 64)
        self.assertAlmostEqual(t["median_ms"], 0.004)

    def test_slow_runs_stop_probing_once_decided(self):
        # 30 us a launch, over the 20-us line: the third probe decides, as
        # in measure.c (1 warm-up, 3 probes, 4 samples)
        acc = tb.Sampling(settings(warmup=1, min_samples=4, max_samples=4, rounds=1,
                                   batch_below_us=20, target_noise=0.5, max_time_s=100))
        calls = []
        tb.measure_round(acc, lambda: None, lambda k, h: calls.append(k) or 0.030, lambda: None)
        self.assertEqual(acc.batch, 1)
        self.assertEqual(calls, [1] * (3 + 4))

    def test_round_stops(self):
        clock = {"t": 0.0}

        def tick():
            return clock["t"]

        # noiseless: stops at its share of min_samples
        acc = tb.Sampling(settings(warmup=0, min_samples=10, max_samples=100, rounds=4,
                                   batch_below_us=0, max_time_s=1.0))
        tb.measure_round(acc, lambda: None, lambda k, h: 1.0, lambda: None, tick)
        self.assertEqual(len(acc.rounds[0]), 3)  # ceil(10/4)
        # noisy: runs to its share of max_samples
        vals = iter([1.0, 2.0] * 100)
        acc = tb.Sampling(settings(warmup=0, min_samples=10, max_samples=100, rounds=4,
                                   batch_below_us=0, max_time_s=1000.0))
        tb.measure_round(acc, lambda: None, lambda k, h: next(vals), lambda: None, tick)
        self.assertEqual(len(acc.rounds[0]), 25)
        # noisy, and its share of max_time_s spent after 7 samples
        acc = tb.Sampling(settings(warmup=0, min_samples=8, max_samples=100, rounds=4,
                                   batch_below_us=0, max_time_s=1.0))
        vals = iter([1.0, 2.0] * 100)

        def slow(k, h):
            clock["t"] += 0.25 / 7 + 1e-9
            return next(vals)

        clock["t"] = 0.0
        tb.measure_round(acc, lambda: None, slow, lambda: None, tick)
        self.assertEqual(len(acc.rounds[0]), 7)
        # the round function itself
        self.assertFalse(tb.round_should_stop([1.0, 1.0], 0.0, 3, 0, 1, 0.01))   # under min_n
        self.assertTrue(tb.round_should_stop([1.0] * 3, 0.0, 3, 0, 1, 0.01))     # quiet
        self.assertFalse(tb.round_should_stop([1.0] * 3, 0.0, 3, 0.5, 1, 0.01))  # min time
        self.assertTrue(tb.round_should_stop([1.0, 2.0] * 3, 1.0, 3, 0, 1, 0.01))  # budget

    def test_hold_that_gives_up_times_the_run_unheld(self):
        acc = tb.Sampling(settings(warmup=0, min_samples=4, max_samples=4, rounds=2,
                                   batch_below_us=0, max_time_s=100))
        seen = []

        def sample(k, held):
            seen.append(held)
            return None if held else 1.0

        tb.measure_round(acc, lambda: None, sample, lambda: None)
        tb.measure_round(acc, lambda: None, sample, lambda: None)
        self.assertFalse(acc.held)
        self.assertEqual(seen, [True] + [False] * 4)
        self.assertEqual(acc.n, 4)

    def test_rounds_interleave_and_move_between(self):
        log = []

        def run_round(entry, r):
            log.append((entry, r))
            return "failed" if (entry == "b" and r == 1) else None

        def move(r):
            log.append(("move", r))
            return r != 2  # the move before round 3 fails: same buffers

        live = ["a", "b", "c"]
        placements = tb.run_rounds(live, 4, run_round, move)
        self.assertEqual(log, [("a", 0), ("b", 0), ("c", 0), ("move", 1), ("a", 1), ("b", 1),
                               ("c", 1), ("move", 2), ("a", 2), ("c", 2), ("move", 3), ("a", 3),
                               ("c", 3)])
        self.assertEqual(live, ["a", "c"])
        self.assertEqual(placements, 3)

    def test_sampling_caps(self):
        s = settings(min_samples=5, max_samples=50, rounds=4)
        self.assertEqual(tb.round_sample_limits(s), (2, 13))
        s = settings(min_samples=9, max_samples=9, rounds=4)
        self.assertEqual(tb.round_sample_limits(s), (3, 3))
        acc = tb.Sampling(settings(warmup=0, min_samples=1, max_samples=2, rounds=1,
                                   batch_below_us=0))
        tb.measure_round(acc, lambda: None, lambda k, h: 1.0, lambda: None)
        with self.assertRaises(RuntimeError):
            tb.measure_round(acc, lambda: None, lambda k, h: 1.0, lambda: None)


class Verdict(unittest.TestCase):
    """3. the validation verdict with convt-bench's default tolerances."""

    fp32 = tb.DEFAULT_TOLERANCE["fp32"]
    tf32 = tb.DEFAULT_TOLERANCE["tf32"]

    def test_defaults_are_convt_benchs(self):
        cfg = tb.parse_config('{"shapes": [{"n":1,"cin":1,"cout":1,"in":[1],"k":1}]}', "x.json")
        self.assertEqual(cfg.tolerance, {"fp32": {"rtol": 1e-5, "atol": 1e-6, "normwise": 1e-5},
                                         "tf32": {"rtol": 2e-3, "atol": 1e-6, "normwise": 2e-3}})
        cfg = tb.parse_config('{"validation": {"tolerance": {"tf32": {"rtol": 0.01}}}, "shapes": '
                              '[{"n":1,"cin":1,"cout":1,"in":[1],"k":1}]}', "x.json")
        self.assertEqual(cfg.tolerance["tf32"], {"rtol": 0.01, "atol": 1e-6, "normwise": 2e-3})
        self.assertEqual(cfg.measure.rounds, 4)
        self.assertEqual((cfg.measure.warmup, cfg.measure.min_samples, cfg.measure.max_samples,
                          cfg.measure.max_time_s, cfg.measure.target_noise,
                          cfg.measure.batch_below_us, cfg.measure.cold_cache),
                         (3, 5, 200, 1.0, 0.005, 20, True))

    def test_nan_fails(self):
        ref = [1.0, -2.0, 3.0]
        s = tb.compare_lists([1.0, float("nan"), 3.0], ref, [1.0, 2.0, 3.0], **self._t(self.tf32))
        self.assertEqual((s.nonfinite, s.worst_index), (1, 1))
        self.assertFalse(tb.error_passes(s, self.tf32))
        self.assertEqual(tb.normwise_error(s), float("inf"))
        self.assertIn("NaN or infinite", tb.error_describe(s, self.tf32))
        v = tb.validation_record(s, self.tf32)
        self.assertIsNone(v["normwise_rel_err"])
        self.assertIsNone(v["worst_ratio"])

    def test_1e3_error_fails_fp32_passes_tf32(self):
        ref = [0.5 + 0.01 * i for i in range(100)]
        mag = [abs(r) * 4 for r in ref]  # terms that partly cancel
        y = [r * (1 + 1e-3) for r in ref]
        s32 = tb.compare_lists(y, ref, mag, **self._t(self.fp32))
        self.assertAlmostEqual(tb.normwise_error(s32), 1e-3, places=9)
        self.assertFalse(tb.error_passes(s32, self.fp32))
        stf = tb.compare_lists(y, ref, mag, **self._t(self.tf32))
        self.assertTrue(tb.error_passes(stf, self.tf32), tb.error_describe(stf, self.tf32))
        self.assertIn("within tolerance", tb.error_describe(stf, self.tf32))

    def test_elementwise_failure_with_small_normwise_error_fails(self):
        n = 10000
        ref = [1.0] * n
        mag = [1.0] * n
        y = list(ref)
        y[1234] = 1.0 + 1e-2  # normwise 1e-4, within tf32's 2e-3; element off by 5x
        s = tb.compare_lists(y, ref, mag, **self._t(self.tf32))
        self.assertLess(tb.normwise_error(s), self.tf32["normwise"])
        self.assertEqual((s.bad, s.worst_index), (1, 1234))
        self.assertGreater(s.worst_ratio, 1.0)
        self.assertFalse(tb.error_passes(s, self.tf32))
        self.assertIn("outside atol", tb.error_describe(s, self.tf32))

    def test_exact_passes_and_merge_keeps_the_worst(self):
        s = tb.compare_lists([1.0, 2.0], [1.0, 2.0], [1.0, 2.0], **self._t(self.fp32))
        self.assertTrue(tb.error_passes(s, self.fp32))
        a = tb.compare_lists([1.0, 2.5], [1.0, 2.0], [1.0, 2.0], **self._t(self.fp32))
        b = tb.compare_lists([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0],
                             **self._t(self.fp32))
        b.worst_index += 2
        whole = tb.merge_stats(b, a)
        self.assertEqual((whole.count, whole.bad, whole.worst_index), (5, 1, 1))

    @staticmethod
    def _t(tol):
        return {"rtol": tol["rtol"], "atol": tol["atol"]}


class Records(unittest.TestCase):
    """4. a record built from synthetic data has what convt-bench's readers use."""

    def test_record_fields(self):
        cfg = tb.load_config(os.path.join(ROOT, "configs", "ci.json"))
        p = cfg.shapes[3]
        acc = tb.Sampling(cfg.measure)
        acc.rounds = [[0.0218, 0.0219, 0.0217], [0.0220, 0.0218], [0.0218, 0.0221, 0.0216],
                      [0.0219, 0.0218]]
        acc.batch, acc.spent_s = 8, 0.02
        timing = tb.timing_record(acc, 4, "cuda_events_torch_held")
        es = tb.compare_lists([1.0], [1.0], [1.0], 1e-5, 1e-6)
        ceilings = {"copy_gbps": 3000.0, "fp32_gflops": 51000.0, "tf32_gflops": 400000.0,
                    "method": "synthetic"}
        rec = tb.build_record(p, "torch_tf32", "tf32", "ok", ceilings, detail="d",
                              validation=tb.validation_record(es, cfg.tolerance["tf32"]),
                              prepare_ms=12.5, timing=timing)
        json.dumps(rec, allow_nan=False)
        self.assertEqual(rec["status"], "ok")
        self.assertEqual((rec["tier"], rec["variant"], rec["launch_key"], rec["launch"]),
                         ("tf32", "torch_tf32", "-", {}))
        self.assertIs(rec["deterministic"], False)
        sh = rec["shape"]
        self.assertEqual(sh["key"], "2d_n2_ci16_co32_g1_k3x3_s5x5_p1x1_op0x0_d2x2_in16x32_b")
        self.assertEqual(list(sh), ["name", "key", "dims", "n", "cin", "cout", "groups", "bias",
                                    "in", "k", "stride", "pad", "out_pad", "dil", "output",
                                    "gflop", "min_gb"])
        self.assertEqual(sh["output"], [2, 32, 78, 158])
        t = rec["timing"]
        for k in ("samples", "median_ms", "min_ms", "max_ms", "mean_ms", "stddev_ms", "noise",
                  "noise_within", "noise_between", "rounds", "round_median_ms", "samples_ms",
                  "placements", "target_met", "spent_s", "cache", "method",
                  "launches_per_sample"):
            self.assertIn(k, t)
        self.assertIsInstance(t["median_ms"], float)
        self.assertIsInstance(t["noise"], float)
        self.assertEqual(t["samples_ms"], acc.rounds)
        self.assertTrue(all(isinstance(r, list) and all(isinstance(x, float) for x in r)
                            for r in t["samples_ms"]))
        self.assertEqual((t["samples"], t["rounds"], t["placements"], t["cache"]),
                         (10, 4, 4, "cold"))
        self.assertEqual(t["median_ms"], 0.0218)
        for k in ("reference", "trials", "normwise_rel_err", "max_abs_err", "worst_ratio",
                  "worst_index", "bad", "nonfinite", "compared", "rtol", "atol", "normwise_tol"):
            self.assertIn(k, rec["validation"])
        self.assertEqual(rec["validation"]["reference"], "gpu_f64_torch")
        self.assertEqual(rec["prepare_ms"], 12.5)
        fl = max(tb.min_bytes(p) / 3000e6, tb.flops(p) / 400000e6)
        self.assertAlmostEqual(rec["floor_ms"], fl)
        self.assertAlmostEqual(rec["floor_fraction"], fl / 0.0218)
        self.assertAlmostEqual(rec["gflops"], tb.flops(p) / 0.0218e-3 / 1e9)

    def test_other_statuses_and_head(self):
        cfg = tb.parse_config('{"seed": 7, "shapes": [{"n":1,"cin":1,"cout":1,"in":[1],"k":1}]}',
                              "x.json")
        rec = tb.build_record(cfg.shapes[0], "torch_fp32", "fp32", "skipped", {},
                              reason="does not fit")
        self.assertEqual((rec["status"], rec["reason"]), ("skipped", "does not fit"))
        self.assertNotIn("timing", rec)
        head = tb.results_head(cfg, "torch x", "abc", {"name": "GPU"}, {"method": "m"})
        self.assertEqual(list(head)[:3], ["tool", "schema", "version"])
        self.assertEqual((head["tool"], head["schema"], head["seed"], head["backend"]),
                         ("convt-bench torch_baseline", 3, "7", "cuda"))
        self.assertRegex(head["time"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "sub", "r.json")
            head["records"].append(rec)
            tb.write_atomic(head, out)
            self.assertEqual(json.load(open(out))["records"][0]["status"], "skipped")
            self.assertEqual(os.listdir(os.path.dirname(out)), ["r.json"])
        line = tb.progress_line(0, 1, rec)
        self.assertIn("skipped", line)
        self.assertIn("does not fit", line)

    def test_revision_prefers_convt_git_revision(self):
        # convt-bench's rule (meson.build): a tree copied to a GPU machine may
        # carry an older .git than its files, so the variable wins over git
        saved = os.environ.get("CONVT_GIT_REVISION")
        try:
            os.environ["CONVT_GIT_REVISION"] = "abc1234"
            self.assertEqual(tb.git_revision(ROOT), "abc1234")
            with tempfile.TemporaryDirectory() as d:  # no checkout: the variable
                self.assertEqual(tb.git_revision(d), "abc1234")
                del os.environ["CONVT_GIT_REVISION"]
                self.assertEqual(tb.git_revision(d), "unknown")
        finally:
            if saved is None:
                os.environ.pop("CONVT_GIT_REVISION", None)
            else:
                os.environ["CONVT_GIT_REVISION"] = saved

    def test_seeds(self):
        self.assertEqual(tb.mix64(0), 0xE220A8397B1DCDAF)  # splitmix64's first output
        self.assertNotEqual(tb.tensor_seed(1, 0, 1), tb.tensor_seed(1, 1, 1))
        self.assertNotEqual(tb.tensor_seed(1, 0, 1), tb.tensor_seed(1, 0, 2))
        self.assertLess(tb.tensor_seed(2**64 - 1, 99, 3), 2**64)


class CommandLine(unittest.TestCase):
    """The script runs without PyTorch as far as it can."""

    def test_import_does_not_import_torch(self):
        self.assertFalse(IMPORTED_TORCH)

    def test_help(self):
        p = run_script("--help")
        self.assertEqual(p.returncode, 0, p.stderr)
        for word in ("torch_fp32", "torch_tf32_benchmark", "--shapes", "--device", "samples_ms",
                     "Exit status"):
            self.assertIn(word, p.stdout)

    def test_without_torch_exit_3(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "torch"))
            with open(os.path.join(d, "torch", "__init__.py"), "w") as f:
                f.write("raise ImportError('simulated: no PyTorch here')\n")
            p = run_script(os.path.join(ROOT, "configs", "ci.json"), "--out",
                           os.path.join(d, "r.json"), env_extra={"PYTHONPATH": d})
            self.assertEqual(p.returncode, 3, p.stderr)
            self.assertIn("PyTorch is not available", p.stderr)
            self.assertFalse(os.path.exists(os.path.join(d, "r.json")))

    def test_usage_errors_exit_2(self):
        ci = os.path.join(ROOT, "configs", "ci.json")
        self.assertEqual(run_script(ci).returncode, 2)  # no --out
        p = run_script(ci, "--dry-run", "--shapes", "nope")
        self.assertEqual(p.returncode, 2)
        self.assertIn("ci_2d_square", p.stderr)
        self.assertEqual(run_script(ci, "--dry-run", "--variants", "cudnn_fp32").returncode, 2)
        self.assertEqual(run_script("/nonexistent.json", "--dry-run").returncode, 2)
        p = run_script(ci, "--dry-run", "--shapes", "ci_1d_strided_dil")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("1d_n2_ci16_co32_g1_k3_s2_p1_op0_d2_in4096_nb", p.stdout)
        self.assertNotIn("ci_2d_square", p.stdout)


class Example(unittest.TestCase):
    """5. the committed example from an H100 run, when there is one."""

    def setUp(self):
        if not os.path.exists(EXAMPLE):
            self.skipTest(f"{os.path.relpath(EXAMPLE, ROOT)} does not exist yet (produce it on a "
                          "GPU machine with tools/torch_baseline.py)")
        with open(EXAMPLE) as f:
            self.doc = json.load(f)

    def test_example(self):
        doc = self.doc
        self.assertIn(doc["schema"], (2, 3))  # the example was written by schema 2
        self.assertEqual(doc["tool"], "convt-bench torch_baseline")
        self.assertEqual(doc["backend"], "cuda")
        for k in ("name", "compute_capability", "sm_count", "memory_bytes", "cudnn_version",
                  "torch_version"):
            self.assertIn(k, doc["device"])
        for k in ("copy_gbps", "fp32_gflops", "tf32_gflops", "method"):
            self.assertIn(k, doc["ceilings"])
        cfg_path = doc["config_path"]
        cfg = tb.load_config(cfg_path if os.path.isabs(cfg_path) else os.path.join(ROOT, cfg_path))
        self.assertEqual(tb.parse_config(json.dumps(doc["config"]), cfg_path).shapes, cfg.shapes,
                         "the config recorded is not the config named")
        by_key = {tb.problem_key(p): p for p in cfg.shapes}
        per_key = {}
        for r in doc["records"]:
            key = r["shape"]["key"]
            self.assertIn(key, by_key, f"{key} is not a shape of {cfg_path}")
            self.assertEqual(r["shape"], tb.problem_to_json(by_key[key]))
            per_key.setdefault(key, []).append((r["variant"], r["tier"]))
            self.assertEqual(r["launch_key"], "-")
            self.assertIn(r["status"], ("ok", "skipped", "failed", "wrong"))
            if r["status"] == "ok":
                self.check_ok(r)
        self.assertTrue(per_key)
        for key, vt in per_key.items():
            self.assertEqual(sorted(vt), [("torch_fp32", "fp32"), ("torch_tf32", "tf32"),
                                          ("torch_tf32_benchmark", "tf32")], key)

    def check_ok(self, r):
        t = r["timing"]
        name = f"{r['shape']['name']} {r['variant']}"
        rounds = t["samples_ms"]
        flat = [x for rr in rounds for x in rr]
        # samples_ms hold per-launch times: each sample of launches_per_sample
        # back-to-back launches already divided by it, so no division here
        self.assertGreaterEqual(t["launches_per_sample"], 1)
        self.assertEqual(t["samples"], len(flat), name)
        self.assertEqual(t["rounds"], len(rounds), name)
        self.assertEqual(t["median_ms"], statistics.median(flat), name)
        medians = [statistics.median(rr) for rr in rounds]
        self.assertEqual(t["round_median_ms"], medians, name)
        dev = sorted(x - m for rr, m in zip(rounds, medians) for x in rr)
        q1, _, q3 = statistics.quantiles(dev, n=4, method="inclusive")
        within = (q3 - q1) / 1.349 / t["median_ms"]
        between = (statistics.stdev(medians) if len(medians) > 1 else 0) / t["median_ms"]
        self.assertAlmostEqual(t["noise_within"], within, delta=1e-9, msg=name)
        self.assertAlmostEqual(t["noise_between"], between, delta=1e-9, msg=name)
        self.assertAlmostEqual(t["noise"], math.hypot(within, between), delta=1e-9, msg=name)
        self.assertEqual((t["min_ms"], t["max_ms"]), (min(flat), max(flat)), name)
        v = r["validation"]
        self.assertEqual(v["nonfinite"], 0, name)
        self.assertEqual(v["bad"], 0, name)
        self.assertLessEqual(v["normwise_rel_err"], v["normwise_tol"], name)


def main():
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    print(f"torch_baseline: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
