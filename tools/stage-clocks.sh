# Helpers for a stage-clock probe (results/*-stage-clocks-*.sh), sourced
# from the repository root with $OUT set (tools/gpu-run.sh's CONVT_BEFORE):
#
#   stage_clocks_build DIR "['-DCONVT_WG_STAGE_CLOCKS', ...]"
#       a convt-bench built into DIR with those cuda_args (kept if DIR
#       is set up); its logs in $OUT/NAME-setup.log, NAME-build.log
#   stage_clocks_run DIR CONFIG SHAPE VARIANT KNOB=VALUE ...
#       one launch of that shape from CONFIG, once, by DIR's convt-bench;
#       "== NAME SHAPE VARIANT KNOBS" and the kernel's report appended to
#       $CONVT_STAGE_CLOCKS, the run's statuses printed (CONVT_WG_DIAG, if
#       set, in the label: kernels/wg_stage_clocks.h's switches)
#   stage_clocks_diags DIR CONFIG DIAG ... -- SHAPE VARIANT KNOB=VALUE ...
#       stage_clocks_run once per CONVT_WG_DIAG value (kernels/
#       wg_stage_clocks.h: bits that switch parts of a stage off)
#
# python3 tools/stage_clocks_summary.py $CONVT_STAGE_CLOCKS (session 33's tool) then gives the
# medians per launch (kernels/wg_stage_clocks.h says what each column is).

stage_clocks_build() {
  local b=$1 args=$2 name
  name=$(basename "$b")
  if [ ! -f "$b/build.ninja" ]; then
    meson setup "$b" -Dcuda=enabled -Dcudnn=disabled -Dtests=disabled -Dsm=90a "-Dcuda_args=$args" \
      > "$OUT/$name-setup.log" 2>&1 || { tail -20 "$OUT/$name-setup.log"; return 1; }
  fi
  ninja -C "$b" convt-bench > "$OUT/$name-build.log" 2>&1 ||
    { grep -E 'error|FAILED' -A3 "$OUT/$name-build.log" | head -40; return 1; }
}

stage_clocks_run() {
  local b=$1 cfg=$2
  shift 2
  python3 tools/one_launch_config.py "$cfg" "$@" --once > /tmp/clk.json
  local label="$(basename "$b")${CONVT_WG_DIAG:+ diag=$CONVT_WG_DIAG} $*"
  echo "== $label" >> "$CONVT_STAGE_CLOCKS"
  rm -f /tmp/clk-out.json
  timeout 120 "$b/convt-bench" --quiet --config /tmp/clk.json --out /tmp/clk-out.json > /tmp/clk.log 2>&1
  echo "$label: exit $? $(python3 -c "import json;d=json.load(open('/tmp/clk-out.json'));print([r['status'] for r in d['records']])" 2>&1)" |
    tee -a "$CONVT_STAGE_CLOCKS"
}

stage_clocks_diags() {
  local b=$1 cfg=$2 diags=()
  shift 2
  while [ "$1" != -- ]; do diags+=("$1"); shift; done
  shift
  for d in "${diags[@]}"; do
    CONVT_WG_DIAG=$d stage_clocks_run "$b" "$cfg" "$@"
  done
}
