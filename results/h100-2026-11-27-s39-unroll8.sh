#!/usr/bin/env bash
# probe (session 39): the row walk's octet loop (wg_copy_octets) unrolled 8
# times, in a patched copy of the tree, against the tree's 4, in one call
# (run through gpu-run.sh's CONVT_BEFORE, which has built build-gpu and
# exported the carried packages' paths). Nsight Compute put the end of each
# unrolled batch on the load path: its address registers are rewritten
# while queued LDGSTS still read them; 8 octets a batch halve those waits.
# The tree itself is not changed: its kernels stay the validated ones.
cd "$(dirname "$0")/.."
set -u
out=${OUT:?}
rm -rf /tmp/p8 && mkdir -p /tmp/p8
tar cf - --exclude='./build*' --exclude=./results --exclude=./.deps . | (cd /tmp/p8 && tar xf -)
grep -c '^#pragma unroll 4$' /tmp/p8/kernels/polyphase_wgmma.cuh
sed -i 's/^#pragma unroll 4$/#pragma unroll 8/' /tmp/p8/kernels/polyphase_wgmma.cuh
(cd /tmp/p8 && meson setup b -Dcuda=enabled -Dcudnn=disabled -Dtests=disabled -Dsm=90a > "$out/p8-setup.log" 2>&1 &&
   ninja -C b convt-bench > "$out/p8-build.log" 2>&1) || { tail -20 "$out/p8-build.log"; exit 1; }
for b in build-gpu /tmp/p8/b; do
  tag=$([ "$b" = build-gpu ] && echo unroll4 || echo unroll8)
  timeout 240 "$b/convt-bench" --quiet --config configs/issuer-probe.json --out "$out/$tag.json" > "$out/$tag.log" 2>&1
  echo "$tag: exit $? $(tail -1 "$out/$tag.log")"
done
build-gpu/convt-bench compare "$out/unroll4.json" "$out/unroll8.json" > "$out/unroll-compare.txt"
tail -3 "$out/unroll-compare.txt"
