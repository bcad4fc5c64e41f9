# TF32 GEMM time by operand layout (K-major or MN-major), for im2col_gemm's GEMMs:
# which of its operands to copy into K-major order (session 62).
#   python3 tools/gemm-layouts.py      (on a GPU machine with PyTorch)
import torch, sys
torch.backends.cuda.matmul.allow_tf32 = True
def t(fn, it=40):
    for _ in range(5): fn()
    torch.cuda.synchronize()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(it)]
    for a, b in ev:
        a.record(); fn(); b.record()
    torch.cuda.synchronize()
    ts = sorted(a.elapsed_time(b) for a, b in ev)
    return ts[len(ts)//2] * 1000
shapes = [("simplebaseline M=co*taps N=img*P K=ci", 4096, 1536, 2048),
          ("dcgan_mid", 256*16, 256*64, 512),
          ("resdec_7to14_c512", 256*9, 64*49, 512),
          ("pwc_565to2", 2*16, 8*64*128, 565),
          ("fsrcnn", 81, 16*6400, 56)]
for name, M, N, K in shapes:
    out = []
    for am in ("K", "M"):
        for bm in ("K", "N"):
            A = torch.randn(M, K, device="cuda") if am == "K" else torch.randn(K, M, device="cuda").t()
            B = torch.randn(K, N, device="cuda") if bm == "N" else torch.randn(N, K, device="cuda").t()
            C = torch.empty(M, N, device="cuda")
            out.append("A %s-major B %s-major %7.1f us" % (am, bm, t(lambda: torch.mm(A, B, out=C))))
    # the transposes themselves
    W = torch.randn(K, M, device="cuda"); Wt = torch.empty(M, K, device="cuda")
    out.append("transpose KxM->MxK %7.1f us" % t(lambda: Wt.copy_(W.t())))
    print(name, M, N, K, "|", " | ".join(out), flush=True)
