# TF32 GEMM time by operand layout (K-major or M/N-major), for im2col_gemm's
# GEMMs: which of its operands to copy into K-major order (session 62).
#   python3 tools/gemm-layouts.py      (on a GPU machine with PyTorch)
# "K-major": the operand's reduction dimension contiguous, the order TF32
# wgmma reads from shared memory. Medians of 40 CUDA-event timings.
import torch

torch.backends.cuda.matmul.allow_tf32 = True


def median_us(fn, iters=40):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(iters)]
    for start, end in events:
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    times = sorted(start.elapsed_time(end) for start, end in events)
    return times[len(times) // 2] * 1000


# (name, M = cout/groups x taps, N = images x input positions, K = cin/groups)
# of im2col's merged GEMM on configs/im2col-probe.json's layers. Session 62's
# run (results/h200-2026-11-29-s62-call1-gemm-layouts.txt) had three of
# them wrong (dcgan_mid as 4096 x 16384 x 512, resdec as 2304 x 3136 x
# 512, PWC-Net's N as 65536): neighbouring shapes, not those layers.
SHAPES = [("simplebaseline_deconv1", 4096, 1536, 2048),
          ("dcgan_mid_b256", 2048, 16384, 256),
          ("resdec_7to14_c512", 4096, 1568, 512),
          ("pwcnet_feat_up_c565to2", 32, 57344, 565),
          ("fsrcnn_x3_c56to1", 81, 102400, 56)]

for name, M, N, K in SHAPES:
    out = []
    for a_major in ("K", "M"):
        for b_major in ("K", "N"):
            A = (torch.randn(M, K, device="cuda") if a_major == "K"
                 else torch.randn(K, M, device="cuda").t())
            B = (torch.randn(K, N, device="cuda") if b_major == "N"
                 else torch.randn(N, K, device="cuda").t())
            C = torch.empty(M, N, device="cuda")
            us = median_us(lambda: torch.mm(A, B, out=C))
            out.append("A %s-major B %s-major %7.1f us" % (a_major, b_major, us))
    # what moving the weights would cost: their transpose by torch's copy
    W = torch.randn(K, M, device="cuda")
    Wt = torch.empty(M, K, device="cuda")
    out.append("transpose KxM->MxK %7.1f us" % median_us(lambda: Wt.copy_(W.t())))
    print(name, M, N, K, "|", " | ".join(out), flush=True)
