#!/usr/bin/env python3
"""A sweep config of one shape, one variant and one launch, taken from a
committed config: what a profiler run needs (tools/gpu-run.sh's
CONVT_PROFILE, tools/profile-wgmma.sh).

    one_launch_config.py CONFIG SHAPE VARIANT [KNOB=VALUE ...] [--once] > one.json

--once measures a single warm sample (Nsight Compute replays the kernel
itself); otherwise the config's measure section stays."""
import json
import sys


def main(argv):
    once = "--once" in argv
    args = [a for a in argv if a != "--once"]
    if len(args) < 3:
        sys.exit(__doc__)
    config, shape, variant, *knobs = args
    c = json.load(open(config))
    c["shapes"] = [s for s in c["shapes"] if s["name"] == shape]
    if not c["shapes"]:
        sys.exit(f"{config}: no shape named {shape}")
    c["variants"] = [variant]
    c["launch"] = {variant: {k: int(v) for k, v in (kv.split("=", 1) for kv in knobs)}}
    if once:
        c["measure"] = {"warmup": 0, "min_samples": 1, "max_samples": 1, "rounds": 1,
                        "cache": "warm"}
    print(json.dumps(c))


if __name__ == "__main__":
    main(sys.argv[1:])
