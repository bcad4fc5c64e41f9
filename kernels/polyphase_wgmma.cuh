/* polyphase_wgmma_tf32's and polyphase_wgmma_3xtf32's device code (sm_90a):
 * their arguments, tile order, pipeline and kernel template. The host side is in
 * kernels/cuda_polyphase_igemm.cu; the kernel's instantiations are spread
 * over kernels/polyphase_wgmma_bn*.cu (wg_kernel_bn* below), so that they
 * compile in parallel. */
#ifndef CONVT_KERNELS_POLYPHASE_WGMMA_CUH
#define CONVT_KERNELS_POLYPHASE_WGMMA_CUH

#include <stdint.h>

#include "build_config.h"
#include "fold_box.h"
#include "fold_phases.h"
#include "row_fold.h"
#include "row_pairs.h"
#include "split_k.h"
#include "polyphase_common.cuh"
#include "wgmma_flat.h"

#if CONVT_HAVE_WGMMA
// ----------------------------------------------------------------------------
// polyphase_wgmma_tf32: the phases on Hopper's warpgroup MMA, each input row
// staged once for all the taps that read it
//
// The GEMM of a phase is turned around: output channels are wgmma's M (64
// per warpgroup) and output positions its N (bn of them). Within a phase
// the taps that share their offsets along dimensions 0 and 1 (a tap row,
// convt_phase_plan_rows) read one input row, each shifted by its own off[2]
// along it; so the block stages that row's positions x bk input channels
// once and every tap of the row is one wgmma over the same tile, its
// operand descriptor started `shift` positions further. mma.sync's
// implicit GEMM gathers A again for every tap (kb65: 7 taps per row).
//
// The phase's outputs are laid out flat: its rows of (image, q0, q1) one
// after another, each `pitch` positions long, the row's q_count[2] outputs
// starting at column `lead` (wg_phase_flat). The pitch leaves room for the
// widest shift, so that a shift never carries a position into the next
// row: output column c of a row, tap t, reads staged column
// c + off2_max - off[2](t) of the same row, whatever the tap row. A tile is
// any stretch of bn flat positions, across rows and images; its columns
// beyond a row's outputs are computed and not stored. Tiled by row
// segments instead (v4-v7), a short row wasted the rest of its tile (kb68:
// rows of 68 in tiles of 80) and a block's weights fed few positions
// (kb69: 144), which made the weights' reads from L2 the limit.
//
// Tap planes (knob plane = 1, session 21): the taps that share only their
// offset along dimension 0 read one stretch of input rows, staged once, each
// tap a shift of whole rows and columns into it (convt_wg_tap_shift: the
// layout gives each (image, q0) the planes' off[1] span of extra rows,
// computed and not stored, so that no shift carries into the next plane).
// With 3 x 3 x 3 taps a channel chunk is staged 3 times where tap rows
// staged it 9; the stretch is longer by the span times the pitch (kb70:
// 512 positions + 202). Staged per tap row, kb70 (24 output channels, a
// stage's input used by 3 taps x 24 channels) kept the L1 at 66% with the
// tensor cores at 44% (Nsight Compute, v14).
//
// Both operands sit in shared memory K-major, in core matrices of 8 rows x
// 16 bytes without swizzle (the layout tools/wgmma_probe.cu established on
// the H100: LBO = distance between core matrices along K, SBO = along M/N):
// both with rows evenly 16 bytes apart (SBO = 128), so a descriptor may
// start at any row (the input's: the tap's shift), and the K core matrices
// lbo apart:
//   input tile  (position r, channel k)   at (k/4)*b_lbo + r*16 + (k%4)*4,
//               b_lbo = r_alloc*16 + kpad
//   weights     (channel co, channel k)   at (k/4)*a_lbo + co*16 + (k%4)*4,
//               a_lbo = channels*16 + kpad, repacked beforehand into
//               exactly these bytes (wg_weight_slot).
// kpad (0 or 64 bytes, a knob) puts the two K halves of a row in opposite
// halves of the banks: with both a multiple of 128 bytes apart, Nsight
// Compute counted 45% excess shared-memory wavefronts on kb64, where the
// loaders' stores are conflict-free.
// The block is warp-specialised (v9): a producer warpgroup gathers the
// input tile by 4-byte cp.async (8 positions x 4 channels per warp
// instruction: 4 sectors of 32 bytes read, 32 banks written), up to
// stages - 1 stages ahead; its copies arrive on the stage's mbarrier as
// they land (cp.async.mbarrier.arrive). The weights of a stage are one bulk
// copy by the TMA engine (v13): the launch repacks them beforehand into the
// very bytes the stage holds, stage after stage (wg_weight_slot), so one
// thread issues one instruction per stage where 128 threads issued 20
// 16-byte cp.async each on kb69, at 52 instructions per copy (SASS, v12:
// three quarters of the producer's instructions, and the producer, one
// warp per scheduler, is what the consumers waited for). The consumer
// warpgroups wait on the stage's mbarrier, issue the stage's wgmma and
// release the buffer of the stage before on a second mbarrier. setmaxnreg
// moves the producer's registers to the consumers' accumulators. With
// every warp both loading and issuing wgmma, behind one __syncthreads per
// stage (v4-v8), Nsight Compute on kb57 counted 0.40 instructions issued
// per cycle and scheduler, 60% of cycles with no warp eligible, and the SM
// at 39%. For up to 64 output channels per group the consumers take two
// neighbouring tiles (the weights, and one input stretch, staged once for
// both), beyond that two 64-channel halves of one tile (the input staged
// once for both). The blocks are persistent (v10): one per SM walks a list
// of tiles, and the producer fills the next tile's stages while the
// consumers store this one's (v9 ran a block per tile, one block per SM:
// the table loads, the pipeline fill and the epilogue of each were
// exposed, 126 times over on kb57). The tensor cores read the top 19 bits
// of each float: the weights are rounded to nearest when repacked, the
// inputs truncated (at most 2^-10 each, inside the tf32 tolerance).
//
// polyphase_wgmma_3xtf32 (SPLIT3) carries float32 accuracy on the same
// pipeline: each operand is split into a TF32 big part (rounded to
// nearest) and the TF32 rounding of what is left, and a stage sums
// small*big + big*small + big*big, three wgmma where one was. A stage holds
// both parts of both operands: the weight image has each tap tile's small
// part right after its big part (pack_weights_stages), and the producer
// splits the input it gathered in place, each thread the floats its own
// cp.async wrote (wg_split_own): it waits for a stage's copies one stage
// later, after issuing the next stage's, so the gather's latency stays
// hidden, and then arrives on the stage's full barrier. The tensor core's
// accumulation truncates, and over thousands of K steps its bias exceeds
// float32 accuracy (polyphase_igemm_3xtf32 found 2e-5 normwise on kb58): so
// each stage's products go to a partial sum of their own (wgmma with
// scale-d 0 starts it), which the consumers add to the tile's sums with
// FADD once the stage's wgmma are done. The partial sums double the
// accumulators: widths up to 160 (WG_MAX_BN_SPLIT3: 80 + 80 of the
// consumer's 216 registers, as two 64-channel blocks of 80 are, MH = 2).

/* A producer warpgroup (the copies) and two consumer warpgroups (the
 * wgmma); registers per thread as setmaxnreg gives them. */
enum {
    WG_THREADS = 384,
    WG_PRODUCERS = 128,
    WG_M = 64,
    WG_MAX_BN = 256, /* the widest compiled tile (wgmma's largest N) */
    WG_MAX_BN_SPLIT3 = 160, /* polyphase_wgmma_3xtf32's widest: its partial sums double the accumulators */
    WG_MAX_BN_WIDE_M = 160, /* the widest with two 64-channel blocks a warpgroup (BN accumulators) */
    /* 64 + 2 x 216 = 496 of the 3 x 168 registers a thread the launch
     * gives: at 56 the producer kept 8 to 16 bytes of stack in 18 of the
     * 210 instantiations (the 3xTF32 ones and one with positions as M);
     * at 64 none has any, and no consumer spills at 216 */
    WG_PRODUCER_REGS = 64,
    WG_CONSUMER_REGS = 216,
    WG_MAX_STAGES = 5,
#ifndef CONVT_WG_ISSUER_THREAD0
    WG_ISSUER = WG_PRODUCERS - 32, /* the producer thread that issues a stage's weights: lane 0 of the last warp */
#else /* diagnostic builds (-Dcuda_args=-DCONVT_WG_ISSUER_THREAD0): thread 0, as before session 39, to compare */
    WG_ISSUER = 0,
#endif
    WG_BARRIER_BYTES = 128 /* full and empty barriers of up to 5 stages, 8 bytes each */
};

/* A phase's tap rows and its flat layout (src/lib/wgmma_flat.h). */
typedef convt_wg_flat wg_phase_flat;

struct wg_args {
    poly_args p;
    union {
        const convt_phase_tap_row *rows;
        const convt_wg_row_pair *pairs; /* PAIR (polyphase_wgmma_pair_tf32): the phases' row-pair
                                         * steps (src/lib/row_pairs.h), in the tap rows' place */
    };
    const wg_phase_flat *flat;
    const int *shifts; /* per tap: convt_wg_tap_shift in its phase's layout */
    int n;       /* images */
    int r_alloc; /* rows of a staged input tile: nseg x bn + the widest tap shift, a multiple of 8 */
    int ntw_max; /* most taps staged together (a tap row's or plane's): weight buffers per stage */
    int rows_total, taps_total; /* every phase's tap rows (PAIR: steps) and taps: the tables in shared memory;
                                 * taps_total also sizes the weight image (wg_weight_slot) */
    int tables_bytes;           /* the barriers' and the tables' bytes, each rounded up to 128: the stages start there */
    int kpad;                   /* bytes between K core matrices beyond the rows (knob kpad) */
    int co_blocks;              /* blocks of output channels per group */
    int groups;
    int tiles;                  /* units x nphases x co_blocks x groups: the work of the persistent blocks */
    convt_fold fold;            /* knob fold = 1: the original problem that p folds (S = 1 otherwise) */
    /* split-K (KSPLIT): the blocks' work list (src/lib/split_k.h), block b
     * segments [seg_begin[b], seg_begin[b + 1]); unused otherwise */
    const convt_split_segment *segs;
    const int *seg_begin;
    /* polyphase_wgmma_colsum_tf32 (COLS, polyphase_wgmma_colsum.cuh): the
     * taps along a row (kw) and their column step (the dilation), and the
     * rows a warpgroup stores (BN less the shifts' span, rounded up to 4);
     * unused otherwise */
    int col_taps, col_step, col_out;
#ifdef CONVT_WG_STAGE_CLOCKS
    long long *clock_log; /* wg_stage_clocks.h: diagnostic builds only */
    int diag;             /* CONVT_WG_DIAG's bits (WG_DIAG) */
    int stagger;          /* CONVT_WG_STAGGER: cycles the odd blocks' producers wait at the start (WG_STAGGER) */
#endif
};
#include "wg_stage_clocks.h"

/* Tile L of the work list (L < tiles): output channels and groups vary
 * fastest, so that the blocks running at once share input stretches; then
 * the phases, as in polyphase_kernel, so that they share input rows and
 * fill each other's output sectors; then the units of NSEG x BN flat
 * positions (the caller's `positions`: with column sets NSEG x col_out,
 * with clusters a pair tile's). f0 may lie past a short phase's end: such
 * a tile is empty. */
struct wg_tile {
    int phase, f0, co_blk, g;
    int cob; /* co_blk / w_rows: the block of output channels */
};

__host__ __device__ __forceinline__ wg_tile wg_tile_of(const wg_args &wa, int L, int positions, int w_rows)
{
    const int co_tiles = wa.co_blocks * wa.groups;
    const int c = L % co_tiles, x = L / co_tiles;
    wg_tile t;
    t.phase = x % wa.p.nphases;
    t.f0 = (x / wa.p.nphases) * positions;
    t.cob = c % wa.co_blocks;
    t.co_blk = t.cob * w_rows;
    t.g = c / wa.co_blocks;
    return t;
}

/* The flat positions one unit of the tile list covers (wg_tile_of's
 * `positions`), for the kernel and the host alike: NSEG tiles of BN,
 * CLUSTER such for a cluster's pair tile, with column sets
 * (polyphase_wgmma_colsum.cuh) the NSEG warpgroups' stored rows, or with
 * row pairs (PAIR) BN positions of pairs, both warpgroups' columns. */
__host__ __device__ __forceinline__ int wg_unit_positions(bool colsum, int nseg, int bn, int cluster,
                                                          int col_out, bool pair = false)
{
    return colsum ? nseg * col_out : pair ? bn : cluster * nseg * bn;
}

/* A tile's K walk, in pipeline stages: its phase's tap rows x chunks of bk
 * input channels. A tile that starts past its phase's end (a short phase
 * among long ones) has none: the blocks skip it. The kernel's walks and
 * the host's split-K work list (wg_upload_work_list) count both here. */
__host__ __device__ __forceinline__ bool wg_tile_past_end(const wg_tile &t, const wg_phase_flat &fl)
{
    return t.f0 >= fl.flat;
}
__host__ __device__ __forceinline__ int wg_tile_stages(const wg_phase_flat &fl, int chunks)
{
    return fl.nrows * chunks;
}

/* Whether a block whose walk steps by `step` has a tile after tile L that
 * is not past its phase's end (units of `positions`). */
__device__ __forceinline__ bool wg_tile_after(const wg_args &wa, int L, int step, int positions, int w_rows)
{
    for (L += step; L < wa.tiles; L += step) {
        const wg_tile t = wg_tile_of(wa, L, positions, w_rows);
        if (!wg_tile_past_end(t, wa.flat[t.phase]))
            return true;
    }
    return false;
}

/* PAIR: a row-pair step's input rows as the producer reads a tap row's
 * (its offsets; the step's taps are its warpgroups', read apart). */
__device__ __forceinline__ convt_phase_tap_row wg_pair_step_rows(const convt_wg_row_pair &sp)
{
    convt_phase_tap_row r = {};
    r.off[0] = sp.off[0];
    r.off[1] = sp.off[1];
    return r;
}

/* PAIR: warpgroup cw's taps of a row-pair step, as its tap row's (the
 * consumers' stage loop reads tap_begin and ntaps). */
__device__ __forceinline__ convt_phase_tap_row wg_pair_step_taps(const convt_wg_row_pair &sp, int cw)
{
    convt_phase_tap_row r = {};
    r.tap_begin = convt_wg_pair_tap_begin(&sp, cw);
    r.ntaps = convt_wg_pair_ntaps(&sp, cw);
    return r;
}

/* Split-K's segment L of the work list (split_k.h: tile, kt0, kt1, whole),
 * one 16-byte load. */
__device__ __forceinline__ int4 wg_segment(const wg_args &wa, int L)
{
    static_assert(sizeof(convt_split_segment) == sizeof(int4), "a segment is one int4");
    return __ldg((const int4 *)wa.segs + L);
}

/* wgmma's shared-memory matrix descriptor, no swizzle: start address, LBO
 * (between core matrices along K), SBO (along M or N), all in 16 bytes. */
__device__ __forceinline__ uint64_t wg_descriptor(const void *smem, uint32_t lbo, uint32_t sbo)
{
    const uint32_t addr = (uint32_t)__cvta_generic_to_shared(smem);
    return (uint64_t)((addr >> 4) & 0x3fff) | (uint64_t)((lbo >> 4) & 0x3fff) << 16 |
           (uint64_t)((sbo >> 4) & 0x3fff) << 32;
}

#include "wgmma_tf32.cuh"

/* The weight image (pack_weights_stages on the host side fills it): per
 * group, block of w_rows output channels, tap row, chunk of bk input
 * channels and tap of the row, one tap tile of kg x a_lbo bytes laid out
 * as a stage holds it (channel chunk*bk + 4*k4 + e of output channel co at
 * k4*a_lbo + co*16 + e*4, zero where no channel is, the kpad bytes zero).
 * A row's taps are consecutive in the tap list, so the tiles of stage
 * (row, chunk) are ntaps consecutive slots from the one returned here. */
__host__ __device__ __forceinline__ int64_t wg_weight_slot(int g, int cob, int co_blocks,
                                                           int taps_total, int chunks,
                                                           int row_tap_begin, int row_ntaps,
                                                           int chunk)
{
    return ((int64_t)g * co_blocks + cob) * taps_total * chunks + (int64_t)row_tap_begin * chunks +
           (int64_t)chunk * row_ntaps;
}

/* The weight image's tap tiles, all of them: the slot one past the last
 * group's (resident weights, RES, copy the whole image; the host sizes its
 * shared memory with the same count). */
__host__ __device__ __forceinline__ int64_t wg_image_slots(int groups, int co_blocks, int taps_total,
                                                           int chunks)
{
    return wg_weight_slot(groups, 0, co_blocks, taps_total, chunks, 0, 0, 0);
}

/* The resident image's bytes rounded up to 128, so that the stages after it
 * start as aligned as they do after the tables. */
__host__ __device__ __forceinline__ int64_t wg_resident_bytes(int64_t slots, int64_t wtap_bytes)
{
    return (slots * wtap_bytes + 127) / 128 * 128;
}

/* A position of a phase's flat layout (src/lib/wgmma_flat.h). */
typedef convt_wg_cursor wg_cursor;

/* Whether the cursor's position is one of its row's outputs (columns past
 * them are computed, not stored; an image past the last: a position past
 * the phase). */
template <bool SEG = false>
__device__ __forceinline__ bool wg_is_output(const wg_args &wa, const phase_desc &ph,
                                             const wg_phase_flat &fl, const wg_cursor &c)
{
    if constexpr (SEG)
        return convt_wg_segment_is_output(&ph, &fl, &c, wa.n);
    return c.n < wa.n && (unsigned)(c.col - fl.lead) < (unsigned)ph.q_count[2] &&
           c.q1 < ph.q_count[1];
}

/* The output position (o0, o1, o2) of an output of a phase's flat layout,
 * in the problem the kernel computes (o = q*stride + ph - pad; the folded
 * problem's positions t in a fold: kernels/polyphase_wgmma_fold.cuh). SEG:
 * segmented rows (wgmma_flat.h), dimension 0 the lifted one of a 2-D shape
 * and q0 the segment. */
template <bool SEG = false>
__device__ __forceinline__ void wg_output_pos(const poly_args &a, const phase_desc &ph,
                                              const wg_phase_flat &fl, const wg_cursor &c, int (&o)[3])
{
    o[0] = SEG ? 0 : (c.q0 + ph.q_min[0]) * a.stride[0] + ph.ph[0] - a.pad[0];
    o[1] = (c.q1 + ph.q_min[1]) * a.stride[1] + ph.ph[1] - a.pad[1];
    const int col = c.col - fl.lead + (SEG ? convt_wg_segment_col0(&ph, &c) : 0);
    o[2] = (col + ph.q_min[2]) * a.stride[2] + ph.ph[2] - a.pad[2];
}

/* Where an output position goes: its offset from its channel's plane in
 * image 0 (image c.n, and its place in the plane). */
template <bool SEG = false>
__device__ __forceinline__ int64_t wg_output_offset(const poly_args &a, const phase_desc &ph,
                                                    const wg_phase_flat &fl, const wg_cursor &c)
{
    int o[3];
    wg_output_pos<SEG>(a, ph, fl, c, o);
    return (int64_t)c.n * a.cout * a.out_plane + (o[0] * a.out[1] + o[1]) * a.out[2] + o[2];
}

/* The epilogue's staging, per warp: 16 output channels x 32 positions,
 * rows padded to 40 floats (float2 stores of a half warp hit 32 banks). */
enum { WG_EPI_COLS = 32, WG_EPI_PITCH = 40, WG_EPI_BYTES = 8 * 16 * WG_EPI_PITCH * 4 };

/* Chunk jc of a warp's 16 x BN accumulators, plus the bias of its two rows,
 * into its staging (register r of a thread: row lane / 4 + 8 ((r / 2) % 2),
 * column 8 (r / 4) + 2 (lane % 4) + r % 2); returns the chunk's columns:
 * 32, and 16 in the last chunk of a width that is no multiple of 32. */
template <int BN>
__device__ __forceinline__ int wg_epi_stage(const float (&d)[BN / 2], const float b_frag[2],
                                            float *stage_w, int jc, int lane)
{
    constexpr int full_chunks = BN / WG_EPI_COLS;
    const int cols = jc < full_chunks ? WG_EPI_COLS : BN - full_chunks * WG_EPI_COLS;
#pragma unroll
    for (int j = 0; j < WG_EPI_COLS / 8; j++)
        if (8 * j < cols)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int r = 4 * (jc * (WG_EPI_COLS / 8) + j) + 2 * h;
                *(float2 *)&stage_w[(lane / 4 + 8 * h) * WG_EPI_PITCH + 8 * j + 2 * (lane % 4)] =
                    make_float2(d[r] + b_frag[h], d[r + 1] + b_frag[h]);
            }
    return cols;
}

/* mbarriers (shared::cta): a full barrier per stage that the producers'
 * cp.async arrive on when their copies land, an empty one that each
 * consumer warpgroup arrives on when its wgmma of the stage are done. */
__device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(
                     (unsigned)__cvta_generic_to_shared(bar)), "r"(count) : "memory");
}

__device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned parity)
{
    const unsigned a = (unsigned)__cvta_generic_to_shared(bar);
    asm volatile("{\n.reg .pred done;\nwait_%=:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra wait_%=;\n}\n" ::"r"(a), "r"(parity) : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(
                     (unsigned)__cvta_generic_to_shared(bar)) : "memory");
}

/* The next `bytes` of asynchronous copies (the TMA engine's) complete the
 * barrier's current phase too: it ends when the arrivals are in and that
 * many bytes have landed. */
__device__ __forceinline__ void mbar_expect_tx(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(
                     (unsigned)__cvta_generic_to_shared(bar)), "r"(bytes) : "memory");
}

/* A bulk copy of `bytes` (a multiple of 16; both addresses 16-byte aligned)
 * from global to shared memory by the TMA engine, counted on bar as it lands. */
__device__ __forceinline__ void bulk_copy_to_shared(void *dst, const void *src, unsigned bytes,
                                                    uint64_t *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src), "r"(bytes),
                 "r"((unsigned)__cvta_generic_to_shared(bar)) : "memory");
}

/* Thread-block clusters (polyphase_wgmma_cluster_tf32: CLUSTER blocks a
 * cluster along x, which share each stage's weights). The block's rank in
 * its cluster, the cluster's index and the clusters' count, from the
 * hardware's own registers rather than from blockIdx. */
__device__ __forceinline__ int wg_cluster_rank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return (int)r;
}
__device__ __forceinline__ int wg_cluster_index()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r));
    return (int)r;
}
__device__ __forceinline__ int wg_cluster_count()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(r));
    return (int)r;
}

/* Every thread of the cluster that has not exited meets here: the
 * barriers' initialisation (or a block's last remote arrivals) made
 * visible to the other blocks before any of them uses it (or exits). */
__device__ __forceinline__ void wg_cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release;\n"
                 "barrier.cluster.wait.acquire;" ::: "memory");
}

/* mbarrier.init made visible at cluster scope (before wg_cluster_sync):
 * the other block's multicast copies and arrivals land on these barriers. */
__device__ __forceinline__ void fence_mbarrier_init_cluster()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/* The shared::cluster address of p's offset in block `rank` of the cluster. */
__device__ __forceinline__ unsigned wg_cluster_address(const void *p, int rank)
{
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(remote) : "r"((unsigned)__cvta_generic_to_shared(p)), "r"(rank));
    return remote;
}

/* An arrival on the barrier at a shared::cluster address (another block's).
 * Release at CTA scope, as CUTLASS's ClusterBarrier arrives: what it
 * orders is this warpgroup's reads of the buffer, which wgmma.wait_group
 * has completed. With a cluster-scope release (session 26, call 1) the
 * cluster kernels took 4 to 8% longer than at CTA scope (call 2: kb57
 * 3.68 -> 3.38 ms, kb71 0.93 -> 0.86, pix2pix_dec1 0.124 -> 0.120;
 * results/notes.md, "Session 26"). */
__device__ __forceinline__ void mbar_arrive_remote(unsigned remote)
{
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
}

/* bulk_copy_to_shared into every block of the cluster in cta_mask, at dst's
 * offset in each, counted on the barrier at bar's offset in each. */
__device__ __forceinline__ void bulk_copy_multicast(void *dst, const void *src, unsigned bytes,
                                                    uint64_t *bar, unsigned short cta_mask)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1], %2, [%3], %4;"
                 ::"r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src), "r"(bytes),
                 "r"((unsigned)__cvta_generic_to_shared(bar)), "h"(cta_mask) : "memory");
}

/* A consumer warpgroup done with buffer buf: it arrives on its own
 * block's empty barrier and, in a cluster of two, on the other block's
 * (peer_empty: its empty barriers' shared::cluster address), whose
 * producer writes this block's buffer too (the weights' multicast). */
template <int CLUSTER>
__device__ __forceinline__ void wg_release_buffer(uint64_t *empty, int buf, unsigned peer_empty)
{
    mbar_arrive(&empty[buf]);
    if constexpr (CLUSTER > 1)
        mbar_arrive_remote(peer_empty + 8u * (unsigned)buf);
}

/* Two consumer warpgroups that take a block's tiles in turn (ping-pong:
 * polyphase_wgmma_kernel's PING, rows_tma_kernel) meet on named barriers
 * 3 and 4 (of both warpgroups' 256 threads; 1 and 2 are wg_group_sync's):
 * warpgroup cw waits on barrier 3 + cw for the other's pass, which arrives
 * there without waiting. A full barrier tells only its phase's parity:
 * waited for before the other warpgroup has seen the previous tile's
 * stages land, a stage a lap or more ahead of the producer reads as landed
 * (an unused barrier's "previous phase" has completed), and the two then
 * consume and release stages out of turn (call 4 of session 30: hangs
 * under compute-sanitizer). After the wait every stage before the tile's
 * first has landed, so each of the tile's waits is for its buffer's next
 * phase. */
__device__ __forceinline__ void wg_turn_wait(int cw)
{
    asm volatile("bar.sync %0, 256;" ::"r"(3 + cw) : "memory");
}
__device__ __forceinline__ void wg_turn_pass(int cw)
{
    asm volatile("bar.arrive %0, 256;" ::"r"(3 + (1 - cw)) : "memory");
}

/* Programmatic dependent launch (PTX griddepcontrol): a kernel launched
 * with cudaLaunchAttributeProgrammaticStreamSerialization may start once
 * every block of the kernel before it has called wg_allow_dependents (or
 * exited); wg_wait_prior_grids then waits until the kernels before it have
 * completed and their writes are visible. */
__device__ __forceinline__ void wg_wait_prior_grids()
{
    asm volatile("griddepcontrol.wait;" ::: "memory");
}

__device__ __forceinline__ void wg_allow_dependents()
{
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

/* Arrives on bar when every cp.async this thread issued before has landed
 * (noinc: the barrier's count includes these arrivals). */
__device__ __forceinline__ void mbar_arrive_cp_async(uint64_t *bar)
{
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(
                     (unsigned)__cvta_generic_to_shared(bar)) : "memory");
}

/* Where stage kt_all (counted across tiles) lives: buffer kt_all % stages,
 * in the barriers' phase (kt_all / stages) % 2; stepped, not divided (a
 * division by the run-time depth cost 25 instructions a stage on both
 * sides, the consumers' between two stages' wgmma). */
struct wg_ring {
    int buf;
    unsigned phase;
    bool wrapped; /* past the first round: a buffer's previous stage must be released first */
};

__device__ __forceinline__ void wg_ring_step(wg_ring &r, int stages)
{
    if (++r.buf == stages) {
        r.buf = 0;
        r.phase ^= 1u;
        r.wrapped = true;
    }
}

/* n stages on: past the other warpgroup's tile (ping-pong, whose
 * warpgroups share the ring in the producer's order). */
__device__ __forceinline__ void wg_ring_skip(wg_ring &r, int n, int stages)
{
    for (; n > 0; n--)
        wg_ring_step(r, stages);
}

/* The producer's and the consumers' register budgets (setmaxnreg: the
 * producer gives back what the consumers' accumulators need). */
template <int N> __device__ __forceinline__ void wg_regs_dec()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
}
template <int N> __device__ __forceinline__ void wg_regs_inc()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
}

/* T octets of a row from spk/dpk on (wg_copy_octets), then both addresses
 * stepped past them; GUARD: only the first m (at least 1) of them, the
 * others not issued (predicated, no branch: a branch an octet brought
 * ptxas's 3 padding LDS with it). */
template <bool FULL, int NG, int T, bool GUARD>
__device__ __forceinline__ void wg_copy_run(unsigned (&dpk)[NG], const float *(&spk)[NG], int icol, int in2,
                                            bool row_ok, int m, int kg_have)
{
#pragma unroll
    for (int t = 0; t < T; t++) {
        const bool ok = row_ok && (unsigned)(icol + 8 * t) < (unsigned)in2;
#pragma unroll
        for (int kg = 0; kg < NG; kg++) {
            if (WG_CLOCK_SKIP_COPY(kg))
                continue;
            const bool in = FULL ? ok : ok && kg < kg_have;
            if (GUARD && t > 0)
                cp_async4_shared_if(dpk[kg] + t * (8 * 16), spk[kg] + 8 * t, in, t < m);
            else
                cp_async4_shared(dpk[kg] + t * (8 * 16), spk[kg] + 8 * t, in);
        }
    }
#pragma unroll
    for (int kg = 0; kg < NG; kg++) {
        spk[kg] += 8 * T;
        dpk[kg] += T * 8 * 16;
    }
}

/* A producer lane's copies of n_oct octets of one row: staged row
 * 8 o + lane/4 of each, channel groups kg < NG (NG = 4, or 2 where a stage
 * holds 8 channels; kg_have of them exist: the rest are zero-filled) from
 * sp + kg kstride, at dp + kg b_lbo; icol: the input column of the first,
 * valid in [0, in2). FULL: kg_have == NG, no test per group. A row outside
 * the input reads nothing (zero fill). */
template <bool FULL, int NG>
__device__ __forceinline__ void wg_copy_octets(unsigned char *dp, int b_lbo, const float *sp,
                                               int64_t kstride, int icol, int in2, bool row_ok,
                                               int n_oct, int kg_have)
{
    /* both addresses stepped per group (the shared one as a 32-bit
     * address): rebuilt from dp per copy, they took 5 instructions a copy */
    const float *spk[NG];
    unsigned dpk[NG];
#pragma unroll
    for (int kg = 0; kg < NG; kg++) {
        spk[kg] = sp + kg * kstride;
        dpk[kg] = (unsigned)__cvta_generic_to_shared(dp) + kg * b_lbo;
    }
    /* runs of 4 octets, then the last 1 to 3 as one guarded run: a loop
     * unrolled by the compiler (#pragma unroll 4) began with its remainder,
     * a loop of its own, which cost a short row (grp3d's 3 octets) its
     * entry, and a branch and 3 padding LDS an octet (SASS) */
    int j = 0;
#pragma unroll 1
    for (; j + 4 <= n_oct; j += 4, icol += 32)
        wg_copy_run<FULL, NG, 4, false>(dpk, spk, icol, in2, row_ok, 4, kg_have);
    if (j < n_oct)
        wg_copy_run<FULL, NG, 3, true>(dpk, spk, icol, in2, row_ok, n_oct - j, kg_have);
}

/* A producer lane's walk over its staged positions (by rows, or STEP's
 * octet steps): its cursor and, carried with it, where in x the cursor's
 * row's staged column 0 lies,
 *   off = n sn + (q0 + di0) sq0 + (Q1S q1 + di1) s1 + base
 * (base: the lane's channel's offset plus c0),
 * the input row i0 = q0 + di0, i1 = Q1S q1 + di1 of tap row r (SEG: q0
 * the segment, no i0, sq0 the segment's length; PAIR: Q1S 2, a pair's
 * first row; ROWFOLD: rows CONVT_ROW_FOLD_PITCH apart). The offset is
 * linear in n, q0 and q1, so each carry moves it by their steps: rebuilt
 * from the cursor every row (64-bit products and sums, with the bounds),
 * the walk took 112 warp instructions a row of 3 octets for 5.4 copies
 * on grp3d_s1_k3_g4, about 45 of them the offset (Nsight Compute, session
 * 50). Rows past the last image or outside the input are walked as any
 * other and read nothing (wg_copy_octets' zero fill). */
template <bool SEG, bool PAIR, bool ROWFOLD> struct wg_row_walk {
    static constexpr int Q1S = PAIR ? 2 : 1, RP = ROWFOLD ? CONVT_ROW_FOLD_PITCH : 1;
    wg_cursor c;
    int di0, di1;
    int64_t off;
    convt_wg_row_steps steps; /* q1: sq1, q0: sq0, n: sn */

    __device__ __forceinline__ wg_row_walk(const poly_args &a, const phase_desc &ph,
                                           const convt_phase_tap_row &r, int64_t base, wg_cursor first)
        : c(first), di0(SEG ? 0 : ph.q_min[0] - r.off[0]), di1(ph.q_min[1] - r.off[1])
    {
        const int64_t s1 = (int64_t)a.in[2] * RP;
        steps.q1 = Q1S * s1;
        steps.q0 = SEG ? (int64_t)ph.q_min[0] : a.in[1] * s1;
        steps.n = (int64_t)a.cin * a.in_plane;
        off = c.n * steps.n + (c.q0 + di0) * steps.q0 + (Q1S * c.q1 + di1) * s1 + base;
    }
    /* whether the row is an input row of an image (its columns: per octet) */
    __device__ __forceinline__ bool row_ok(const poly_args &a, int images) const
    {
        return c.n < images && (SEG || (unsigned)(c.q0 + di0) < (unsigned)a.in[0]) &&
               (unsigned)(Q1S * c.q1 + di1) < (unsigned)a.in[1];
    }
    /* the input column of the row's staged column col: c0 + col, and with
     * SEG the segment's start */
    __device__ __forceinline__ int input_col(const phase_desc &ph, int c0) const
    {
        return c.col + c0 + (SEG ? convt_wg_segment_col0(&ph, &c) : 0);
    }
    /* convt_wg_cursor_carry, the offset moved with it */
    __device__ __forceinline__ void carry(const phase_desc &ph, const wg_phase_flat &fl)
    {
        convt_wg_cursor_carry_offset(&c, &ph, &fl, &steps, &off);
    }
};

/* polyphase_wgmma_3xtf32: the floats of stage st's input tile that this
 * producer lane copied (wg_copy_octets: staged rows 8 o + lane/4 of its
 * warp's octets ob <= o < oe, channel lane%4 of each of the KG groups),
 * split in place once its copies have landed: the big part, rounded to
 * TF32, where the copy landed, the rounding of the rest in_part bytes
 * further (a zero-filled float splits into two zeros). The lanes of a warp
 * touch 32 neighbouring words per group: no bank conflicts. A batch's
 * loads all issue before its first store: one float at a time (load, round,
 * store), each load waited for its own latency, since the compiler cannot
 * tell that a store does not alias the next load (short scoreboard at the
 * rounding, 43% of the producer's warp samples on kb69, session 43). */
template <int KG>
__device__ __forceinline__ void wg_split_own(unsigned char *st, int in_part, int b_lbo, int ob,
                                             int oe, int lane)
{
    constexpr int B = KG >= 4 ? 2 : 4; /* octets a batch: 8 floats in flight */
    unsigned char *p = st + (8 * ob + lane / 4) * 16 + (lane % 4) * 4;
    for (int o = ob; o < oe; o += B, p += B * 8 * 16) {
        float v[B][KG];
#pragma unroll
        for (int b = 0; b < B; b++)
#pragma unroll
            for (int kg = 0; kg < KG; kg++)
                v[b][kg] = o + b < oe ? *(const float *)(p + b * 8 * 16 + kg * b_lbo) : 0.0f;
#pragma unroll
        for (int b = 0; b < B; b++)
#pragma unroll
            for (int kg = 0; kg < KG; kg++)
                if (o + b < oe) {
                    float *big = (float *)(p + b * 8 * 16 + kg * b_lbo);
                    const float hi = __uint_as_float(tf32_exact(v[b][kg]));
                    big[0] = hi;
                    *(float *)((unsigned char *)big + in_part) = __uint_as_float(tf32_exact(v[b][kg] - hi));
                }
    }
}

/* An output's store: its value, or with split-K (KSPLIT) where `add`, a
 * part's sum added to the others' (the output was filled with the bias or
 * zero first, and the parts add in any order); a segment that is its
 * tile's whole walk (split_k.h) stores. red.global.add, written out:
 * atomicAdd in the folded epilogue's loop made ptxas serialise every wgmma
 * of the kernel (C7520, a compiler-inserted warpgroup.arrive in a
 * divergent path; tools/wgmma-sass.sh: a group per HGMMA). */
template <bool KSPLIT>
__device__ __forceinline__ void wg_store(float *yq, float v, bool add)
{
    if constexpr (KSPLIT) {
        if (add)
            asm volatile("red.relaxed.gpu.global.add.f32 [%0], %1;" ::"l"(yq), "f"(v) : "memory");
        else
            *yq = v;
    } else {
        (void)add;
        *yq = v;
    }
}

/* The epilogue of a warp's 16 output channels from co_w, positions from fw
 * (its warpgroup's 64 x BN sums d). Register r of thread t of a warpgroup
 * holds M row (output channel) 16*(t/32) + (t%32)/4 + 8*((r/2)%2) and N
 * column (position) 8*(r/4) + 2*(t%4) + r%2 (tools/wgmma_probe.cu). Each
 * warp's 16 channels go through shared memory 32 positions at a time, so
 * that a warp stores 32 neighbouring positions of one channel (128 bytes
 * where the stride is 1 and the row goes on); stored from the fragments
 * directly, a warp wrote 8 channels x 4 scattered floats (9 of 32 bytes
 * per sector used, kb64). Both consumer warpgroups store at once and the
 * tensor cores idle meanwhile, so it is lean (v15): the bias goes into the
 * fragments (two channel rows a thread), the lane's position moves from
 * chunk to chunk by a carry, and a store is a load, a store and a pointer
 * step. v14's, with a cursor's fast divisions per chunk and a shuffle, an
 * add and a 64-bit product per value, took 31% of the consumers' warp
 * samples on kb57 and kb69 (Nsight Compute). */
template <int BN, bool KSPLIT, bool SEG = false, bool PAIR = false>
__device__ __forceinline__ void wg_plain_epilogue(const wg_args &wa, const wg_tile &tl,
                                                  const phase_desc &ph, const wg_phase_flat &fl,
                                                  const float (&d)[BN / 2], float *stage_w, int fw,
                                                  int co_w, int lane, const float *__restrict__ bias,
                                                  float *__restrict__ y, bool add, int pair_row = 0)
{
    const poly_args &a = wa.p;
    const int rows_out = min(16, a.cout_g - co_w); /* the warp's channel rows that exist */
    float b_frag[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int co = co_w + lane / 4 + 8 * h;
        b_frag[h] = bias && co < a.cout_g ? bias[tl.g * a.cout_g + co] : 0.0f;
    }
    float *y_ch = y + ((int64_t)tl.g * a.cout_g + co_w) * a.out_plane;
    wg_cursor c = convt_wg_cursor_at(&ph, &fl, fw + lane);
#pragma unroll
    for (int jc = 0; jc < (BN + WG_EPI_COLS - 1) / WG_EPI_COLS; jc++) {
        const int cols = wg_epi_stage<BN>(d, b_frag, stage_w, jc, lane);
        __syncwarp();
        /* the lane's position: stored where it is one of its row's
         * outputs (an image past the last: a position past the phase) */
        /* PAIR: the cursor walks the pairs; its output row is the
         * warpgroup's of the pair (row_pairs.h) */
        const wg_cursor o = PAIR ? convt_wg_pair_row(c, pair_row) : c;
        if (lane < cols && wg_is_output<SEG>(wa, ph, fl, o)) {
            float *yq = y_ch + wg_output_offset<SEG>(a, ph, fl, o);
#pragma unroll
            for (int row = 0; row < 16; row++, yq += a.out_plane)
                if (row < rows_out)
                    wg_store<KSPLIT>(yq, stage_w[row * WG_EPI_PITCH + lane], add);
        }
        __syncwarp();
        c.col += WG_EPI_COLS;
        convt_wg_cursor_carry(&c, &ph, &fl);
    }
}

#include "polyphase_wgmma_posm.cuh"
#include "polyphase_wgmma_colsum.cuh"
#include "polyphase_wgmma_fold.cuh"

/* polyphase_wgmma_fold_inplace_tf32 (INPLACE): the folded kernel reading the
 * weights in place, a stage's one TMA box of w (src/lib/fold_box.h), its A
 * fragments loaded from the box into registers. Declared here, defined in
 * kernels/polyphase_wgmma_inplace.cuh, which only the files that
 * instantiate these kernels include: the other kernels' translation units
 * see no new device code (a definition there once moved
 * polyphase_kernel<3, 32, true>'s registers; results/notes.md, "Session 33"). */
template <int MH, int BK> struct wg_inplace_regs {
    uint32_t a[2][MH][BK / 8][4]; /* two register sets of a tap's A fragments, taken in turn */
    int rows[MH][2];           /* the thread's A rows in the box, its column's pitch included */
    int pitch;                 /* floats between the box's input channels */
};
template <int W_ROWS, int BK>
__device__ __forceinline__ int wg_inplace_stage_bytes(const convt_fold &f);
template <int W_ROWS, int BK>
__device__ __forceinline__ unsigned wg_inplace_box_bytes(const convt_fold &f);
__device__ __forceinline__ int wg_inplace_x0(const wg_args &wa, const convt_phase_tap_row &r);
__device__ __forceinline__ void wg_inplace_load(const void *map, unsigned char *dst, unsigned box_bytes, int x0,
                                                int c_lo, int ci0, int g, uint64_t *bar);
template <int MH, int BK, int W_ROWS>
__device__ __forceinline__ void wg_inplace_tile(wg_inplace_regs<MH, BK> &R, const convt_fold &f, int co_blk,
                                                int wg_co, int ctid);
template <int BN, int BK, int MH>
__device__ __forceinline__ void wg_inplace_stage(float (&d)[MH][BN / 2], wg_inplace_regs<MH, BK> &R,
                                                 const wg_args &wa, const unsigned char *box,
                                                 const unsigned char *in_t, int b_lbo,
                                                 const convt_phase_tap_row &r, const int *s_shift);

/* NCOS = 0: output channels as wgmma's M; 8 to 32: positions as M and the
 * group's NCOS channels (rounded up to 8) as N (polyphase_wgmma_posm.cuh).
 * FOLD: output channels as M, the stride phases folded into them
 * (polyphase_wgmma_fold.cuh). MH: 64-channel blocks per consumer warpgroup;
 * 2 (with NSEG 1: 256 channels a block, knob co_block) lets a staged input
 * stretch feed twice the channels, and halves the tiles of a short problem
 * with many channels (vocoder_up1 folded: 128 tiles, one round of 128
 * blocks, where 256 took two rounds of 131). FOLD_ANY: the fold's S is no
 * power of two (3, 5, 6, ...), so its epilogue divides where the power-of-two
 * one shifts (wg_fold_epilogue). KSPLIT: split-K (src/lib/split_k.h), a
 * block walks its segments of a work list made on the host (ksplit parts
 * of each tile, or stream-K's even shares of the stages), each a stretch
 * of one tile's K walk, whose sums it adds into the output (the bias in it
 * already), or stores where the segment is the tile's whole walk. CLUSTER = 2
 * (polyphase_wgmma_cluster_tf32): the blocks run in clusters of two, and
 * the two blocks of a cluster take the two halves of one pair tile (the
 * same phase and channels, neighbouring stretches of 2 x NSEG x BN
 * positions), so they walk the same stages with the same weights: each
 * block's producer copies half of a stage's weights by TMA multicast into
 * both blocks' buffers, and each consumer warpgroup releases a buffer on
 * both blocks' empty barriers (neither producer may write a buffer the
 * other block still reads). The weights then come from L2 once for two
 * tiles: on layers of many channels and few positions they are most of
 * what a tile reads (pix2pix_dec1: 32 KB of weights and 16 KB of input a
 * stage, tap rows at bn 128). COLS (polyphase_wgmma_colsum_tf32, with NCOS):
 * the taps along a row multiply one A read from shared memory, COLS sets
 * of accumulators, summed at their column shifts in the epilogue
 * (polyphase_wgmma_colsum.cuh); its tiles are NSEG x col_out positions.
 * RES (ping-pong's knob resident): the whole weight image stays in shared
 * memory, copied once by the producer before its first stage, and each
 * stage holds only its input stretch: at 64 channels a tap tile of bk
 * channels is as large as bk channels of 64 staged positions, so a stage
 * of a tap plane's 9 taps held more weights than input (kb57 at seg 56:
 * 37 KB against 25, three stages at most; session 31). Where the image
 * fits beside the stages (kb57: 144 KiB at kpad 0), the stages' L2 reads
 * are the input's alone and a plane's stretch is one small stage.
 * ROWFOLD (polyphase_wgmma_rowfold_tf32): the folded problem is a row
 * fold's (src/lib/row_fold.h), whose input X' the producer reads from x
 * through the row fold's map: a channel's plane and parity row
 * (convt_row_fold_channel), rows CONVT_ROW_FOLD_PITCH apart; with PING
 * too (its knob pingpong), each consumer warpgroup a whole folded tile in
 * turn, stored by the folded epilogue. PAIR (polyphase_wgmma_pair_tf32,
 * src/lib/row_pairs.h): the two consumer warpgroups take two neighbouring
 * output rows over the same BN columns, and the K walk is by row-pair
 * steps, each stage's input rows serving warpgroup 0 through one tap row
 * and warpgroup 1 through the next: kh + 1 stages of BN positions where
 * the tap rows staged kh of 2 BN. */
template <int BN, int BK, int NSEG, bool SPLIT3, int NCOS, bool FOLD = false, int MH = 1,
          bool FOLD_ANY = false, bool KSPLIT = false, int CLUSTER = 1, bool STEP = false, int COLS = 0,
          bool PING = false, bool SEG = false, bool INPLACE = false, bool RES = false, bool ROWFOLD = false,
          bool TURNS = false, bool PAIR = false>
__global__ void __launch_bounds__(WG_THREADS, 1)
    polyphase_wgmma_kernel(wg_args wa, const float *__restrict__ x, const float *__restrict__ wk,
                           const float *__restrict__ bias, float *__restrict__ y)
{
    constexpr int NCO = PING ? 1 : MH * 2 / NSEG; /* 64-channel chunks per block */
    constexpr int W_ROWS = NCOS ? NCOS : NCO * WG_M; /* output channels per block */
    constexpr int KG = BK / 4;                /* 16-byte channel groups */
    constexpr int NG = KG < 4 ? KG : 4;       /* channel groups a producer pass copies */
    constexpr int PARTS = SPLIT3 ? 2 : 1;     /* a staged operand's parts: big, or big and small */
    static_assert(NSEG == 1 || NSEG == 2, "two consumer warpgroups: two tiles or two channel halves");
    static_assert(!SPLIT3 || NCOS || BN <= WG_MAX_BN_SPLIT3, "3xTF32's partial sums double the accumulators");
    static_assert(!NCOS || NSEG == 2, "positions as M: the two warpgroups take neighbouring stretches");
    static_assert(BN % 16 == 0, "epilogue chunks of 32, the last of 16");
    static_assert(!NCOS || (!INPLACE && !ROWFOLD),
                  "positions as M, folded or not: weights from the image, inputs staged as in the folded problem");
    static_assert(FOLD || !FOLD_ANY, "FOLD_ANY is a fold's");
    static_assert(!KSPLIT || !NCOS, "split-K: channels as M");
    static_assert(MH == 1 || (MH == 2 && NSEG == 1 && !NCOS && !SPLIT3 && BN <= WG_MAX_BN_WIDE_M),
                  "two 64-channel blocks per warpgroup: TF32, channels as M, one tile a block");
    static_assert(CLUSTER == 1 || (CLUSTER == 2 && !NCOS && !SPLIT3 && !KSPLIT),
                  "clusters of two: TF32, channels as M, unsplit");
    static_assert(!STEP || (!NCOS && !SPLIT3 && !FOLD && MH == 1 && CLUSTER == 1),
                  "the producer's octet steps: TF32, channels as M, unfolded, one block");
    static_assert(!COLS || (NCOS && !SPLIT3 && !KSPLIT && CLUSTER == 1 && !STEP),
                  "column sets: TF32, positions as M, unsplit, one block");
    static_assert(!PING || (NSEG == 1 && MH == 1 && !SPLIT3 && !NCOS && (!FOLD || ROWFOLD) && !KSPLIT &&
                            CLUSTER == 1 && !STEP && !COLS),
                  "ping-pong: TF32, 64 channels as M (folded: the row fold's), a tile a warpgroup, the row "
                  "walk, one block");
    static_assert(!SEG || PING, "segmented rows: the ping-pong kernel's");
    static_assert(!INPLACE || (FOLD && MH == 1 && !KSPLIT && CLUSTER == 1),
                  "the weights in place: the folded kernel, 64 channels a warpgroup, unsplit, one block");
    static_assert(!RES || PING, "resident weights: the ping-pong kernel's");
    static_assert(!TURNS || (SPLIT3 && !NCOS && !KSPLIT && CLUSTER == 1),
                  "the consumers' stages in turn: 3xTF32, channels as M, unsplit, one block");
    static_assert(!ROWFOLD || (FOLD && !FOLD_ANY && MH == 1 && !KSPLIT && CLUSTER == 1 && !INPLACE),
                  "the row fold: the folded kernel (S a power of two), 64 channels a warpgroup, unsplit, "
                  "one block, its weight image");
    static_assert(!PAIR || (NSEG == 2 && MH == 1 && !SPLIT3 && !NCOS && !FOLD && !KSPLIT && CLUSTER == 1 &&
                            !STEP && !COLS && !PING && !SEG && !INPLACE && !RES && !TURNS),
                  "row pairs: TF32, up to 64 channels as M, a row a warpgroup, the row walk, one block, "
                  "weights staged");
    const poly_args &a = wa.p;
    extern __shared__ __align__(128) unsigned char wg_smem[];
    const int r_alloc = wa.r_alloc;
    /* both tiles: rows 16 bytes apart, K core matrices b_lbo / a_lbo apart */
    const int b_lbo = r_alloc * 16 + wa.kpad, a_lbo = W_ROWS * 16 + wa.kpad;
    /* a part of the input tile, of a tap's weight tile; each is PARTS parts */
    const int in_part = KG * b_lbo, w_part = KG * a_lbo;
    const int in_bytes = PARTS * in_part, wtap_bytes = PARTS * w_part;
    int w_stage_bytes; /* the weights' share of a stage: their image's tap tiles, or w's box (INPLACE) */
    if constexpr (INPLACE)
        w_stage_bytes = wg_inplace_stage_bytes<W_ROWS, BK>(wa.fold);
    else if constexpr (RES)
        w_stage_bytes = 0; /* the whole image stays in shared memory, before the stages */
    else
        w_stage_bytes = wa.ntw_max * wtap_bytes;
    const int stage_bytes = in_bytes + w_stage_bytes;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int stages = a.stages;

    /* Shared memory: the stages' barriers, every phase's tap rows and every
     * tap's shift (read on every stage, where a global load each time
     * stalled the loads and the wgmma issue: L1TEX scoreboard, 42% of the
     * stalls on kb64), the stages, then the
     * epilogue's staging, apart from the stages so that the producer fills
     * the next tile's stages while the consumers store this one's. */
    uint64_t *full = (uint64_t *)wg_smem, *empty = full + WG_MAX_STAGES;
    convt_phase_tap_row *s_rows = (convt_phase_tap_row *)(wg_smem + WG_BARRIER_BYTES);
    convt_wg_row_pair *s_pairs = (convt_wg_row_pair *)s_rows; /* PAIR: its steps in the rows' place */
    int *s_shift = PAIR ? (int *)(s_pairs + wa.rows_total) : (int *)(s_rows + wa.rows_total);
    for (int i = tid; i < wa.rows_total; i += WG_THREADS)
        if constexpr (PAIR)
            s_pairs[i] = wa.pairs[i];
        else
            s_rows[i] = wa.rows[i];
    for (int i = tid; i < wa.taps_total; i += WG_THREADS)
        s_shift[i] = wa.shifts[i];
    if (tid == 0) {
        for (int s = 0; s < stages; s++) {
            mbar_init(&full[s], WG_PRODUCERS);
            /* each block's two consumer warpgroups; with ping-pong the one whose tile it holds */
            mbar_init(&empty[s], PING ? 1 : 2 * CLUSTER);
        }
        if constexpr (RES)
            mbar_init(empty + WG_MAX_STAGES, 1); /* the resident image: the producer's one arrival */
        /* the TMA engine completes transactions on the full barriers
         * (v13's bulk copies) and on the resident image's: their
         * initialisation made visible to the async proxy, as the CUDA
         * Programming Guide's TMA example does */
        fence_proxy_async();
        if constexpr (CLUSTER > 1)
            fence_mbarrier_init_cluster();
    }
    /* Launched with programmatic stream serialization: the block may start
     * while the weight repack before it (pack_weights_stages, or the
     * output's prefill) still runs, and sets up its tables and barriers
     * meanwhile; nothing it reads or writes in global memory is touched
     * before the kernels before it have completed. */
    wg_wait_prior_grids();
    if constexpr (CLUSTER > 1)
        wg_cluster_sync(); /* the other block's barriers are ready before anything lands on them */
    else
        __syncthreads();
    /* the work list's walk: a block's (blockIdx.x, read where the walk
     * starts: read here, it moved the other kernels' registers), or with
     * clusters its cluster's (pair tiles, this block the rank-th half of each) */
    const int crank = CLUSTER > 1 ? wg_cluster_rank() : 0;
    const int walk0 = CLUSTER > 1 ? wg_cluster_index() : 0;
    const int walk_step = CLUSTER > 1 ? wg_cluster_count() : 0;
    const int chunks = (a.cin_g + BK - 1) / BK;
    /* RES: the whole weight image (every group's, block's, tap's and
     * chunk's tiles, wg_weight_slot) after the tables, copied once; its
     * barrier after the stages' */
    unsigned char *res_base = wg_smem + wa.tables_bytes;
    uint64_t *res_full = empty + WG_MAX_STAGES;
    const int64_t res_image = RES ? wg_image_slots(wa.groups, wa.co_blocks, wa.taps_total, chunks) * wtap_bytes : 0;
    unsigned char *stages_base = res_base + (RES ? wg_resident_bytes(res_image / wtap_bytes, wtap_bytes) : 0);
    unsigned char *epi_base = stages_base + (size_t)stages * stage_bytes;

    /* Persistent blocks: block b takes tiles b, b + gridDim.x, ... of the
     * work list (wg_tile_of); the host makes gridDim.x coprime to the
     * phases' period in the list (wg_blocks), so that each block cycles
     * through the phases (which differ in taps) rather than keep one. Producer and consumers walk
     * the same tiles and count the same stages (kt_all, each side's
     * wg_ring): stage kt_all lives in buffer kt_all % stages, in the
     * barriers' phase (kt_all / stages) % 2. */
    if (warp < WG_PRODUCERS / 32) {
        /* The producer warpgroup. Stage kt_all goes into its buffer once
         * both consumers have released that buffer's previous stage; its
         * copies arrive on the stage's full barrier as they land. Within a
         * tile it walks K in order (tap row, then channel chunk).
         * The input: the staged stretch's octets (8 positions; in octet
         * rows, wgmma_flat.h, one row's, in tight rows a lane's walk is
         * its own: convt_wg_row_octets) are split between the 4 warps,
         * a quarter each; lane -> 1 position of each octet x 1 channel of
         * each group of 4, so that a warp instruction reads 4 channels x 8
         * neighbouring positions (4 sectors) and writes 32 banks. A lane
         * copies every channel group of an octet from one address and
         * predicate (wg_copy_octets), and walks only its warp's rows: with
         * the warps split by channel group (v9-v13) each walked every row
         * of the stretch, at about 100 instructions a row, and on rows of
         * 80 (kb68) the walk cost more than the copies (SASS, v13). */
        wg_regs_dec<WG_PRODUCER_REGS>();
        WG_STAGGER(wa);
        WG_CLOCK_COUNTER(p_clk);
        /* The stage's weights (one bulk copy, or INPLACE's box) are issued
         * by lane 0 of the last warp (WG_ISSUER), whose share of the
         * octets is the smallest (the rest after three of oq): the full
         * barrier waits for the slowest warp, and with thread 0 issuing
         * them warp 0 carried a full share and the issue (kb69 in 3xTF32:
         * 9 octets and the issue against warp 3's 6; 3 to 6% of the dense
         * layers' 3xTF32 time, session 39). Shares shifted further to make
         * room for the issue (a quarter of an octet more per other warp)
         * cost 10 to 17% where they made the other warps' shares 9 for 8
         * (unet2d_up1). */
        const int octets = r_alloc / 8;
        const int oq = (octets + 3) / 4, ob = min(octets, warp * oq), oe = min(octets, ob + oq);
        const bool issuer = tid == WG_ISSUER;
        wg_ring ring = {0, 0u, false};
        /* INPLACE: the box's bytes, and the x0 of the last tap row loaded
         * (its first tap, ip_row), computed once and at a row's change:
         * per stage, the issuer's divisions held up the stage's copies */
        unsigned ip_box = 0;
        int ip_row = -1, ip_x0 = 0;
        if constexpr (INPLACE)
            ip_box = wg_inplace_box_bytes<W_ROWS, BK>(wa.fold);
        if (RES && tid == 0) {
            /* the image, in copies of up to 32 KiB, announced before they land */
            mbar_expect_tx(res_full, (unsigned)res_image);
            for (int64_t o = 0; o < res_image; o += 32768)
                bulk_copy_to_shared(res_base + o, (const unsigned char *)wk + o,
                                    (unsigned)(res_image - o < 32768 ? res_image - o : 32768), res_full);
            mbar_arrive(res_full);
        }
        int pending = -1; /* SPLIT3: the buffer whose copies are yet to be split and announced */
        /* split-K: the block's segments of the work list, in order (the
         * bounds written out: a variable for them moved the other
         * kernels' registers) */
        for (int L = KSPLIT ? wa.seg_begin[blockIdx.x] : CLUSTER > 1 ? walk0 : (int)blockIdx.x;
             L < (KSPLIT ? wa.seg_begin[blockIdx.x + 1] : wa.tiles);
             L += KSPLIT ? 1 : CLUSTER > 1 ? walk_step : (int)gridDim.x) {
            const int4 sg = KSPLIT ? wg_segment(wa, L) : make_int4(L, 0, 0, 1);
            wg_tile tl = wg_tile_of(wa, sg.x, wg_unit_positions(COLS > 0, NSEG, BN, CLUSTER, wa.col_out, PAIR), W_ROWS);
            /* by value: the row walk's carry read q_count from global
             * memory on every row (the mbarrier waits' memory clobbers
             * made the compiler reload it), an L1 miss each time where the
             * 4-byte copies stream through L1 (hit rate 16%, kb68) */
            const phase_desc ph = a.phases[tl.phase];
            const wg_phase_flat fl = wa.flat[tl.phase];
            if (wg_tile_past_end(tl, fl)) /* a cluster's blocks skip together */
                continue;
            tl.f0 += crank * (NSEG * BN); /* a half past the phase's end gathers zeros, stores nothing */
            int ip_c_lo = 0; /* INPLACE: the block's first original channel, its box's (fold_box.h) */
            if constexpr (INPLACE)
                ip_c_lo = convt_fold_box_c_lo(&wa.fold, tl.co_blk);
            /* staged column c of a row reads input position c + c0 (wg_phase_flat) */
            const int c0 = ph.q_min[2] - fl.lead - fl.off2_max;
            const wg_cursor first = convt_wg_cursor_at(&ph, &fl, tl.f0 + 8 * ob + lane / 4);
            const int ktiles = wg_tile_stages(fl, chunks);
            /* split-K: this block's part of the tile's walk (the
             * consumers take the same); otherwise all of it */
            const convt_split_part sp = KSPLIT ? convt_split_part_at(sg.y, sg.z, chunks, BK)
                                               : convt_split_part{0, ktiles, 0, 0};
            int row = sp.row, ci0 = sp.ci0;
            for (int kt = sp.kt0; kt < sp.kt1; kt++, wg_ring_step(ring, stages)) {
                const int buf = ring.buf;
                if (ring.wrapped)
                    mbar_wait(&empty[buf], ring.phase ^ 1u);
                WG_CLOCK(wa, issuer, p_clk, WG_CLK_PRODUCER_FREE);
                unsigned char *st = stages_base + (size_t)buf * stage_bytes;
                /* PAIR: the step's input rows, read as a tap row at its
                 * offsets reads them (its taps are the weights' below) */
                const convt_phase_tap_row r = PAIR ? wg_pair_step_rows(s_pairs[fl.row_begin + row])
                                                   : s_rows[fl.row_begin + row];
                if (INPLACE && issuer) {
                    if constexpr (INPLACE) { /* the row's box of w (wk: its tensor map) */
                        if (r.tap_begin != ip_row) {
                            ip_row = r.tap_begin;
                            ip_x0 = wg_inplace_x0(wa, r);
                        }
                        wg_inplace_load(wk, st + in_bytes, ip_box, ip_x0, ip_c_lo, ci0, tl.g, &full[buf]);
                    }
                } else if (PAIR && issuer && !WG_DIAG(wa, WG_DIAG_NO_WEIGHTS)) {
                    /* warpgroup 0's tap row's weights, then 1's: a bulk
                     * copy each (their tiles lie apart in the image) */
                    const convt_wg_row_pair sp = s_pairs[fl.row_begin + row];
                    const unsigned b0 = (unsigned)(sp.ntaps[0] * wtap_bytes), b1 = (unsigned)(sp.ntaps[1] * wtap_bytes);
                    mbar_expect_tx(&full[buf], b0 + b1);
#pragma unroll
                    for (int w = 0; w < 2; w++)
                        if (sp.ntaps[w] > 0)
                            bulk_copy_to_shared(st + in_bytes + (unsigned)(convt_wg_pair_weight_tile(&sp, w) * wtap_bytes),
                                                (const unsigned char *)wk +
                                                    wg_weight_slot(tl.g, tl.cob, wa.co_blocks, wa.taps_total, chunks,
                                                                   sp.tap_begin[w], sp.ntaps[w], ci0 / BK) *
                                                        wtap_bytes,
                                                w ? b1 : b0, &full[buf]);
                } else if (!PAIR && !RES && issuer && !WG_DIAG(wa, WG_DIAG_NO_WEIGHTS)) {
                    /* the weights of every tap of the row: one bulk copy,
                     * announced before this thread's own copies arrive */
                    const unsigned bytes = (unsigned)(r.ntaps * wtap_bytes);
                    const int64_t slot = wg_weight_slot(tl.g, tl.cob, wa.co_blocks, wa.taps_total,
                                                        chunks, r.tap_begin, r.ntaps, ci0 / BK);
                    mbar_expect_tx(&full[buf], bytes);
                    const unsigned char *src = (const unsigned char *)wk + slot * wtap_bytes;
                    if constexpr (CLUSTER > 1) {
                        /* this block's half (16-byte multiples), into both
                         * blocks; the other half comes from the other block */
                        const unsigned half = bytes / 32 * 16, from = crank ? half : 0u;
                        bulk_copy_multicast(st + in_bytes + from, src + from, crank ? bytes - half : half,
                                            &full[buf], (unsigned short)0x3);
                    } else {
                        bulk_copy_to_shared(st + in_bytes, src, bytes, &full[buf]);
                    }
                }
                WG_CLOCK(wa, issuer, p_clk, WG_CLK_PRODUCER_WEIGHTS);
                /* the lane's channel ci0 + lane % 4 + 4 kg; in a chunk past
                 * cin_g the groups that do not exist are zero-filled */
                const int ci = ci0 + lane % 4;
                const int64_t ch_off = ROWFOLD ? convt_row_fold_channel((int64_t)tl.g * a.cin_g + ci, a.in_plane, a.in[2])
                                               : ((int64_t)tl.g * a.cin_g + ci) * a.in_plane;
                const int64_t kstride = 4 * a.in_plane;
                const int kg_have = ci0 + BK <= a.cin_g ? KG : (a.cin_g - ci + 3) / 4;
                unsigned char *dst = st + (lane % 4) * 4;
                /* the lane's walk over tap row r's input rows from its first position */
                wg_row_walk<SEG, PAIR, ROWFOLD> w(a, ph, r, ch_off + c0, first);
                if constexpr (STEP) {
                    /* Tight rows (wgmma_flat.h): a row is one or two
                     * octets and the lanes of a warp are in different
                     * rows, so the row walk below, its setup paid per row
                     * and its loops divergent, cost 23.6 instructions a
                     * copy on pix2pix_dec1 (Nsight Compute, session 27).
                     * Here every lane steps one octet at a time, in step
                     * with its warp: its own row's bounds each step, then
                     * a carry (the row's offset carried with it). */
                    const unsigned d0 = (unsigned)__cvta_generic_to_shared(dst) + (8 * ob + lane / 4) * 16;
                    for (int o = ob; o < oe; o++) {
                        const int icol = w.input_col(ph, c0);
                        const bool ok = w.row_ok(a, wa.n) && (unsigned)icol < (unsigned)a.in[2];
                        const float *sp = x + (ok ? w.off + w.c.col : 0);
                        const unsigned dp = d0 + (unsigned)(o - ob) * (8 * 16);
#pragma unroll
                        for (int kg = 0; kg < KG; kg++)
                            cp_async4_shared(dp + kg * b_lbo, sp + kg * kstride, ok && kg < kg_have);
                        w.c.col += 8;
                        w.carry(ph, fl);
                    }
                } else if (!WG_DIAG(wa, WG_DIAG_NO_INPUT)) {
                    for (int o = ob; o < oe;) {
                        /* one row: its octets from o on */
                        const int n_oct = min(oe - o, convt_wg_row_octets(&w.c, &fl));
                        const int icol = w.input_col(ph, c0);
                        const bool row_ok = w.row_ok(a, wa.n);
                        /* a select, not a branch: ptxas sank the channel's
                         * 64-bit product into a branch taken every row */
                        const float *sp = x + (row_ok ? w.off + w.c.col : 0);
                        unsigned char *dp = dst + (8 * o + lane / 4) * 16;
                        /* 4 channel groups a pass: 8 pointers (bk = 32) spilled
                         * from the producer's registers (56 then) */
#pragma unroll
                        for (int h = 0; h < KG; h += NG) {
                            if (kg_have >= h + NG)
                                wg_copy_octets<true, NG>(dp + h * b_lbo, b_lbo, sp + h * kstride, kstride, icol,
                                                         a.in[2], row_ok, n_oct, NG);
                            else
                                wg_copy_octets<false, NG>(dp + h * b_lbo, b_lbo, sp + h * kstride, kstride, icol,
                                                          a.in[2], row_ok, n_oct, kg_have - h);
                        }
                        o += n_oct;
                        w.c.col += 8 * n_oct;
                        w.carry(ph, fl);
                    }
                }
                if constexpr (SPLIT3) {
                    /* this stage's copies as a group; the stage before,
                     * its copies in, split and announced */
                    cp_async_commit();
                    if (pending >= 0) {
                        cp_async_wait(1);
                        wg_split_own<KG>(stages_base + (size_t)pending * stage_bytes, in_part, b_lbo,
                                         ob, oe, lane);
                        mbar_arrive(&full[pending]);
                    }
                    pending = buf;
                } else {
                    mbar_arrive_cp_async(&full[buf]);
                }
                WG_CLOCK(wa, issuer, p_clk, WG_CLK_PRODUCER_ISSUED);
                WG_CLOCK_STEP(p_clk);
                ci0 += BK;
                if (ci0 >= a.cin_g) {
                    ci0 = 0;
                    row++;
                }
            }
        }
        if (SPLIT3 && pending >= 0) {
            cp_async_wait(0);
            wg_split_own<KG>(stages_base + (size_t)pending * stage_bytes, in_part, b_lbo, ob, oe, lane);
            mbar_arrive(&full[pending]);
        }
        cp_async_wait(0);
        if constexpr (CLUSTER > 1)
            wg_cluster_sync(); /* with the consumers' (below) */
        return;
    }

    /* The two consumer warpgroups: for up to 64 output channels per group
     * two neighbouring tiles, beyond that two 64-channel halves of one;
     * with ping-pong (PING) the block's tiles in turn, each a whole tile
     * of 64 channels, so that one's epilogue runs while the other's wgmma
     * do (Nsight Compute, session 31: with both storing at once the
     * epilogue took 24% of the consumers' warp samples on kb57, 38% on
     * kb71, and the tensor cores idled through it). */
    wg_regs_inc<WG_CONSUMER_REGS>();
    const int cw = (tid - WG_PRODUCERS) / 128, wg_seg = PING ? 0 : cw % NSEG, wg_co = PING ? 0 : cw / NSEG;
    /* PAIR: the warpgroup's row of each pair; through a shuffle from lane
     * 0, so that ptxas sees what it selects (the stage's taps, the loop's
     * bound) warp-uniform (C7520, as PING's) */
    [[maybe_unused]] const int pair_row = PAIR ? __shfl_sync(0xffffffffu, cw, 0) : 0;
    const unsigned peer_empty = CLUSTER > 1 ? wg_cluster_address(empty, crank ^ 1) : 0u;
    const int ctid = tid - WG_PRODUCERS, cwarp = ctid / 32;
    float *stage_w = (float *)(epi_base + cwarp * (16 * WG_EPI_PITCH * 4));
    wg_ring ring = {0, 0u, false};
    if constexpr (RES)
        mbar_wait(res_full, 0u); /* the resident image has landed */
    int turn = 0; /* PING: the block's tiles so far (past-the-end ones not counted) */
    /* TURNS: the two warpgroups issue each stage in turn, warpgroup 0
     * first (wg_turn_wait, wg_turn_pass); cw through a shuffle, so that
     * ptxas sees the branch on it warp-uniform (C7520, as PING's) */
    [[maybe_unused]] const int cw_turn = TURNS ? __shfl_sync(0xffffffffu, cw, 0) : 0;
    [[maybe_unused]] bool turned = false; /* TURNS: this warpgroup has issued a stage */
    WG_CLOCK_COUNTER(c_clk);
    for (int L = KSPLIT ? wa.seg_begin[blockIdx.x] : CLUSTER > 1 ? walk0 : (int)blockIdx.x;
         L < (KSPLIT ? wa.seg_begin[blockIdx.x + 1] : wa.tiles);
         L += KSPLIT ? 1 : CLUSTER > 1 ? walk_step : (int)gridDim.x) {
        const int4 sg = KSPLIT ? wg_segment(wa, L) : make_int4(L, 0, 0, 1);
        wg_tile tl = wg_tile_of(wa, sg.x, wg_unit_positions(COLS > 0, NSEG, BN, CLUSTER, wa.col_out, PAIR), W_ROWS);
        /* by value, loaded while the K loop runs: the epilogue reads it */
        const phase_desc ph = a.phases[tl.phase];
        const wg_phase_flat fl = wa.flat[tl.phase];
        if (wg_tile_past_end(tl, fl))
            continue;
        tl.f0 += crank * (NSEG * BN);
        const int ktiles = wg_tile_stages(fl, chunks);
        if constexpr (PING) {
            /* the other warpgroup's tile: its stages passed over; this
             * one's waited for once the other has seen the previous
             * tile's stages land (wg_turn_wait) */
            /* cw through a shuffle from lane 0: warp-uniform as ptxas
             * sees it (derived from the thread's index, the branch had it
             * serialise every wgmma: C7520) */
            const bool mine = (turn & 1) == __shfl_sync(0xffffffffu, cw, 0);
            turn++;
            if (!mine) {
                wg_ring_skip(ring, ktiles, stages);
                continue;
            }
            if (turn > 1)
                wg_turn_wait(cw);
        }
        if constexpr (NCOS > 0) {
            const wg_stage_layout sl = {stages_base, stage_bytes, in_bytes, in_part,
                                        wtap_bytes, w_part, a_lbo, b_lbo};
            if constexpr (COLS > 0)
                wg_colsum_tile<BN, BK, NCOS, COLS>(
                    wa, tl, ph, fl, ktiles, ring, sl, s_rows, s_shift, full, empty, wg_seg, ctid,
                    (float *)(epi_base + (size_t)cw * wg_colsum_group_bytes(BN, NCOS)), bias, y);
            else
                wg_posm_tile<BN, BK, SPLIT3, NCOS, FOLD, !FOLD_ANY>(wa, tl, ph, fl, ktiles, ring, sl, s_rows,
                                                                    s_shift, full, empty, wg_seg, ctid, bias, y);
        } else {
            /* split-K: the producer's part of the walk; a part without a
             * stage (fewer stages than parts) adds nothing */
            const convt_split_part sp = KSPLIT ? convt_split_part_at(sg.y, sg.z, chunks, BK)
                                               : convt_split_part{0, ktiles, 0, 0};
            const int kt0 = sp.kt0, kt1 = sp.kt1;
            if (KSPLIT && kt1 == kt0)
                continue;
            float d[MH][BN / 2]; /* the warpgroup's 64-channel blocks' sums */
            float part[SPLIT3 ? BN / 2 : 1]; /* SPLIT3: a stage's sums, started by its first wgmma */
#pragma unroll
            for (int m = 0; m < MH; m++)
#pragma unroll
                for (int r = 0; r < BN / 2; r++)
                    d[m][r] = 0.0f;
#pragma unroll
            for (int r = 0; r < (SPLIT3 ? BN / 2 : 1); r++)
                part[r] = 0.0f;
            wg_inplace_regs<MH, BK> ip; /* INPLACE only */
            if constexpr (INPLACE)
                wg_inplace_tile<MH, BK, W_ROWS>(ip, wa.fold, tl.co_blk, wg_co, ctid);
            int k_row = sp.row, k_ci0 = sp.ci0, prev_buf = 0;
            for (int kt = kt0; kt < kt1; kt++, prev_buf = ring.buf, wg_ring_step(ring, stages)) {
                const int buf = ring.buf;
                WG_CLOCK(wa, ctid == 0, c_clk, WG_CLK_CONSUMER_WAITS);
                mbar_wait(&full[buf], ring.phase);
                WG_CLOCK(wa, ctid == 0, c_clk, WG_CLK_CONSUMER_LANDED);
                /* the input's copies wrote through the generic proxy; wgmma
                 * reads through the async one (the weights' bulk copy is
                 * async-proxy already, made visible by the barrier) */
                if (!WG_DIAG(wa, WG_DIAG_NO_FENCE))
                    fence_proxy_async();
                const unsigned char *st = stages_base + (size_t)buf * stage_bytes;
                /* PAIR: the warpgroup's taps of the step, its weights after
                 * warpgroup 0's (pair_row 1) */
                const convt_phase_tap_row r = PAIR ? wg_pair_step_taps(s_pairs[fl.row_begin + k_row], pair_row)
                                                   : s_rows[fl.row_begin + k_row];
                /* the warpgroup's position j (flat f0 + wg_seg*BN + j), tap t,
                 * reads staged row wg_seg*BN + j + shift(t) (convt_wg_tap_shift);
                 * PAIR: both warpgroups' positions are the tile's BN */
                const unsigned char *in_t = st + (PAIR ? 0 : wg_seg * (BN * 16));
                const unsigned char *w_t =
                    (RES ? res_base + wg_weight_slot(tl.g, tl.cob, wa.co_blocks, wa.taps_total, chunks,
                                                     r.tap_begin, r.ntaps, k_ci0 / BK) * wtap_bytes
                         : st + in_bytes) + wg_co * (MH * WG_M * 16) +
                    (PAIR && pair_row ? convt_wg_pair_weight_tile(&s_pairs[fl.row_begin + k_row], pair_row) * wtap_bytes
                                      : 0);
                if constexpr (TURNS) {
                    /* the other warpgroup's stage issued before this one's:
                     * warpgroup 1 waits for 0's same stage, 0 for 1's stage
                     * before (none before 0's first). One's stage is then
                     * queued on the tensor pipe while the other waits for
                     * its own and adds its sums: with one partial sum each
                     * 3xTF32 stage ends in wait_group 0, and side by side
                     * the two drained the pipe together (kb69's stage: 2651
                     * cycles for 1920 of wgmma, session 39) */
                    if (cw_turn == 1 || turned)
                        wg_turn_wait(cw_turn);
                    turned = true;
                }
                if constexpr (INPLACE)
                    wg_inplace_stage<BN, BK, MH>(d, ip, wa, st + in_bytes, in_t, b_lbo, r, s_shift);
                else
                    wgmma_fence();
                for (int t = 0; !INPLACE && !WG_DIAG(wa, WG_DIAG_NO_WGMMA) && t < r.ntaps; t++) {
                    const int shift = s_shift[r.tap_begin + t];
#pragma unroll
                    for (int kk = 0; kk < BK / 8; kk++) {
                        const unsigned char *w_k = w_t + t * wtap_bytes + kk * 2 * a_lbo;
                        const unsigned char *in_k = in_t + shift * 16 + kk * 2 * b_lbo;
                        const uint64_t w_big = wg_descriptor(w_k, a_lbo, 128), in_big = wg_descriptor(in_k, b_lbo, 128);
                        if constexpr (SPLIT3) {
                            /* the small parts lie a part further; the
                             * stage's first product starts its sums */
                            wgmma_tf32(part, wg_descriptor(w_k + w_part, a_lbo, 128), in_big, t > 0 || kk > 0);
                            wgmma_tf32(part, w_big, wg_descriptor(in_k + in_part, b_lbo, 128));
                            wgmma_tf32(part, w_big, in_big);
                        } else {
                            /* the warpgroup's channel blocks, each a wgmma on the same input */
#pragma unroll
                            for (int m = 0; m < MH; m++)
                                wgmma_tf32(d[m], m ? wg_descriptor(w_k + m * (WG_M * 16), a_lbo, 128) : w_big,
                                           in_big);
                        }
                    }
                }
                if constexpr (!INPLACE) /* its groups are committed */
                    wgmma_commit();
                if constexpr (TURNS)
                    wg_turn_pass(cw_turn);
                if constexpr (SPLIT3) {
                    /* the stage's sums, rounded to nearest into the tile's;
                     * its buffer is free */
                    wgmma_wait_all();
#pragma unroll
                    for (int r = 0; r < BN / 2; r++)
                        d[0][r] += part[r];
                    if (ctid % 128 == 0)
                        mbar_arrive(&empty[buf]);
                } else {
                    /* the previous stage's wgmma are done in this warpgroup:
                     * its buffer is free */
                    WG_CLOCK(wa, ctid == 0, c_clk, WG_CLK_CONSUMER_ISSUED);
                    wgmma_wait_prev();
                    if (kt > kt0 && ctid % 128 == 0)
                        wg_release_buffer<CLUSTER>(empty, prev_buf, peer_empty);
                }
                WG_CLOCK_STEP(c_clk);
                k_ci0 += BK;
                if (k_ci0 >= a.cin_g) {
                    k_ci0 = 0;
                    k_row++;
                }
            }
            /* PING: every stage of this tile has landed: the other
             * warpgroup's turn, if the block has a tile after this one;
             * its wgmma start while this one's last run */
            if constexpr (PING)
                if (wg_tile_after(wa, L, (int)gridDim.x, BN, W_ROWS))
                    wg_turn_pass(cw);
            if constexpr (!SPLIT3) {
                wgmma_wait_all();
                /* the tile's last stage is free too: the producer may fill it
                 * with the next tile while this one is stored */
                if (kt1 > kt0 && ctid % 128 == 0)
                    wg_release_buffer<CLUSTER>(empty, prev_buf, peer_empty);
            }

            /* Epilogue (wg_plain_epilogue, wg_fold_epilogue), a 64-channel
             * block at a time. (a second tile past the phase's end stores
             * nothing: its cursor's positions are no outputs; a branch
             * around the epilogue here, divergent between the two
             * warpgroups, made ptxas serialise every wgmma: C7520) */
            const int fw = tl.f0 + (PAIR ? 0 : wg_seg * BN);
#pragma unroll
            for (int m = 0; m < MH && !WG_DIAG(wa, WG_DIAG_NO_EPILOGUE); m++) {
                const int co_w = tl.co_blk + (wg_co * MH + m) * WG_M + 16 * (cwarp % 4);
                /* split-K: a part of a tile adds to the prefill, which put
                 * the bias in; a whole tile's walk stores (split_k.h) */
                const bool add = KSPLIT && !sg.w;
                const float *ep_bias = add ? nullptr : bias;
                if constexpr (FOLD)
                    wg_fold_epilogue<BN, !FOLD_ANY, KSPLIT, !ROWFOLD>(wa, tl, ph, fl, d[m], stage_w, fw, co_w,
                                                                       lane, ep_bias, y, add);
                else
                    wg_plain_epilogue<BN, KSPLIT, SEG, PAIR>(wa, tl, ph, fl, d[m], stage_w, fw, co_w, lane,
                                                             ep_bias, y, add, pair_row);
            }
        }
    }
    /* TURNS: warpgroup 1's pass after its last stage, which no stage of
     * warpgroup 0's waited for */
    if constexpr (TURNS)
        if (cw_turn == 0 && turned)
            wg_turn_wait(0);
    /* the other block's consumers may still arrive on this block's empty
     * barriers: neither block exits before both are through */
    if constexpr (CLUSTER > 1)
        wg_cluster_sync();
}

typedef void (*wg_kernel_fn)(wg_args, const float *, const float *, const float *, float *);

/* The TF32 kernel of width BN for bk (8, 16 or 32) and nseg (1 or 2), one
 * function per width, defined by WG_KERNELS_OF_WIDTH in
 * kernels/polyphase_wgmma_bn*.cu; the 3xTF32 one for bk 8 or 16 (a stage
 * holds twice the bytes), by WG_SPLIT3_KERNELS_OF_WIDTH in
 * kernels/polyphase_wgmma_3xtf32.cu. */
#define WG_KERNELS_OF_WIDTH(BN)                                                                    \
    wg_kernel_fn wg_kernel_bn##BN(int bk, int nseg)                                               \
    {                                                                                              \
        if (bk == 8)                                                                               \
            return nseg == 1 ? polyphase_wgmma_kernel<BN, 8, 1, false, 0>                          \
                             : polyphase_wgmma_kernel<BN, 8, 2, false, 0>;                         \
        if (bk == 16)                                                                              \
            return nseg == 1 ? polyphase_wgmma_kernel<BN, 16, 1, false, 0>                         \
                             : polyphase_wgmma_kernel<BN, 16, 2, false, 0>;                        \
        return nseg == 1 ? polyphase_wgmma_kernel<BN, 32, 1, false, 0>                             \
                         : polyphase_wgmma_kernel<BN, 32, 2, false, 0>;                            \
    }
/* ... and with the consumers' stages in turn (knob turns = 1: TURNS), by
 * WG_SPLIT3_TURNS_KERNELS_OF_WIDTH in kernels/polyphase_wgmma_3xtf32_turns.cu. */
#define WG_SPLIT3_OF(BN, BK, NSEG, TURNS)                                                          \
    polyphase_wgmma_kernel<BN, BK, NSEG, true, 0, false, 1, false, false, 1, false, 0, false, false, false, \
                           false, false, TURNS>
/* A function NAME returning the kernel OF(BN, bk, nseg, X) of width BN for
 * 3xTF32's chunks (bk 8 or 16) and nseg 1 or 2, X the kernel's one further
 * template argument (TURNS; the fold's ANY): the unfolded and the folded
 * 3xTF32 kernels dispatch alike. */
#define WG_BK_8_16_KERNELS_AS(NAME, OF, BN, X)                                                     \
    wg_kernel_fn NAME(int bk, int nseg)                                                            \
    {                                                                                              \
        if (bk == 8)                                                                               \
            return nseg == 1 ? OF(BN, 8, 1, X) : OF(BN, 8, 2, X);                                  \
        return nseg == 1 ? OF(BN, 16, 1, X) : OF(BN, 16, 2, X);                                    \
    }
/* The same with bk 32 too: the folded and split-K 3xTF32 kernels, whose
 * blocks of 64 output channels (the fold's few, split-K's short layers)
 * leave room for 3 stages of 32 channels, and whose every stage ends in a
 * wait for all its wgmma (3xTF32's sums apart): bk 16 took 1.2 to 1.5x
 * less time than bk 8 on most layers (session 56) */
#define WG_BK_8_16_32_KERNELS_AS(NAME, OF, BN, X)                                                  \
    wg_kernel_fn NAME(int bk, int nseg)                                                            \
    {                                                                                              \
        if (bk == 8)                                                                               \
            return nseg == 1 ? OF(BN, 8, 1, X) : OF(BN, 8, 2, X);                                  \
        if (bk == 16)                                                                              \
            return nseg == 1 ? OF(BN, 16, 1, X) : OF(BN, 16, 2, X);                                \
        return nseg == 1 ? OF(BN, 32, 1, X) : OF(BN, 32, 2, X);                                    \
    }
#define WG_SPLIT3_KERNELS_OF_WIDTH_AS(NAME, BN, TURNS) WG_BK_8_16_KERNELS_AS(NAME, WG_SPLIT3_OF, BN, TURNS)
#define WG_SPLIT3_KERNELS_OF_WIDTH(BN) WG_SPLIT3_KERNELS_OF_WIDTH_AS(wg_split3_kernel_bn##BN, BN, false)
#define WG_SPLIT3_TURNS_KERNELS_OF_WIDTH(BN)                                                       \
    WG_SPLIT3_KERNELS_OF_WIDTH_AS(wg_split3_turns_kernel_bn##BN, BN, true)
/* The compiled widths (wgmma's N, 64 to WG_MAX_BN in steps of 16; 3xTF32's
 * to WG_MAX_BN_SPLIT3): one list each for the declarations here and
 * wg_kernel_for's dispatch. */
/* The folded kernels (polyphase_wgmma_fold_tf32: TF32, channels as M) of
 * width BN (every width of WG_WIDTHS) for bk 16 or 32 and nseg 1 or 2,
 * defined by WG_FOLD_KERNELS_OF_WIDTH in kernels/polyphase_wgmma_fold_bn*.cu
 * (S a power of two) and by WG_FOLD_ANY_KERNELS_OF_WIDTH in
 * kernels/polyphase_wgmma_fold_any*.cu (any other S). */
#define WG_FOLD_KERNELS_OF_WIDTH_AS(NAME, BN, ANY)                                                 \
    wg_kernel_fn NAME(int bk, int nseg)                                                            \
    {                                                                                              \
        if (bk == 16)                                                                              \
            return nseg == 1 ? polyphase_wgmma_kernel<BN, 16, 1, false, 0, true, 1, ANY>           \
                             : polyphase_wgmma_kernel<BN, 16, 2, false, 0, true, 1, ANY>;          \
        return nseg == 1 ? polyphase_wgmma_kernel<BN, 32, 1, false, 0, true, 1, ANY>               \
                         : polyphase_wgmma_kernel<BN, 32, 2, false, 0, true, 1, ANY>;              \
    }
#define WG_FOLD_KERNELS_OF_WIDTH(BN) WG_FOLD_KERNELS_OF_WIDTH_AS(wg_fold_kernel_bn##BN, BN, false)
#define WG_FOLD_ANY_KERNELS_OF_WIDTH(BN) WG_FOLD_KERNELS_OF_WIDTH_AS(wg_fold_any_kernel_bn##BN, BN, true)
/* The folded kernels at float32 accuracy (polyphase_wgmma_fold_3xtf32:
 * SPLIT3 and FOLD, channels as M) of width BN (WG_SPLIT3_WIDTHS) for bk 8,
 * 16 or 32, nseg 1 or 2 and S a power of two or not, defined by
 * WG_FOLD_SPLIT3_KERNELS_OF_WIDTH in kernels/polyphase_wgmma_fold_3xtf32.cu
 * (S a power of two) and kernels/polyphase_wgmma_fold_any_3xtf32.cu. The K
 * loop is 3xTF32's, the epilogue the fold's: the two compose unchanged. */
#define WG_FOLD_SPLIT3_OF(BN, BK, NSEG, ANY) polyphase_wgmma_kernel<BN, BK, NSEG, true, 0, true, 1, ANY>
#define WG_FOLD_SPLIT3_KERNELS_OF_WIDTH_AS(NAME, BN, ANY) WG_BK_8_16_32_KERNELS_AS(NAME, WG_FOLD_SPLIT3_OF, BN, ANY)
#define WG_FOLD_SPLIT3_KERNELS_OF_WIDTH(BN)                                                        \
    WG_FOLD_SPLIT3_KERNELS_OF_WIDTH_AS(wg_fold_split3_kernel_bn##BN, BN, false)
#define WG_FOLD_ANY_SPLIT3_KERNELS_OF_WIDTH(BN)                                                    \
    WG_FOLD_SPLIT3_KERNELS_OF_WIDTH_AS(wg_fold_any_split3_kernel_bn##BN, BN, true)
/* The row fold's kernels (polyphase_wgmma_rowfold_tf32: ROWFOLD, the
 * folded kernel's with S a power of two) of width BN (every width of
 * WG_WIDTHS) for bk 16 or 32 and nseg 1 or 2, defined by
 * WG_ROWFOLD_KERNELS_OF_WIDTH in kernels/polyphase_wgmma_rowfold_bn*.cu. */
#define WG_ROWFOLD_OF(BN, BK, NSEG)                                                                \
    polyphase_wgmma_kernel<BN, BK, NSEG, false, 0, true, 1, false, false, 1, false, 0, false, false, false, \
                           false, true>
#define WG_ROWFOLD_KERNELS_OF_WIDTH(BN)                                                            \
    wg_kernel_fn wg_rowfold_kernel_bn##BN(int bk, int nseg)                                        \
    {                                                                                              \
        if (bk == 16)                                                                              \
            return nseg == 1 ? WG_ROWFOLD_OF(BN, 16, 1) : WG_ROWFOLD_OF(BN, 16, 2);               \
        return nseg == 1 ? WG_ROWFOLD_OF(BN, 32, 1) : WG_ROWFOLD_OF(BN, 32, 2);                   \
    }
/* With ping-pong (the row fold's knob pingpong: PING) of every width of
 * WG_PINGPONG_WIDTHS, for bk 16 or 32 and resident weights or not (RES),
 * defined by WG_ROWFOLD_PINGPONG_KERNELS_OF_WIDTH in
 * kernels/polyphase_wgmma_rowfold_pingpong.cu. */
#define WG_ROWFOLD_PING_OF(BN, BK, RES)                                                            \
    polyphase_wgmma_kernel<BN, BK, 1, false, 0, true, 1, false, false, 1, false, 0, true, false, false, RES, \
                           true>
#define WG_ROWFOLD_PINGPONG_KERNELS_OF_WIDTH(BN)                                                   \
    wg_kernel_fn wg_rowfold_pingpong_kernel_bn##BN(int bk, bool res)                               \
    {                                                                                              \
        if (bk == 16)                                                                              \
            return res ? WG_ROWFOLD_PING_OF(BN, 16, true) : WG_ROWFOLD_PING_OF(BN, 16, false);    \
        return res ? WG_ROWFOLD_PING_OF(BN, 32, true) : WG_ROWFOLD_PING_OF(BN, 32, false);        \
    }
#define WG_WIDTHS(X) X(64) X(80) X(96) X(112) X(128) X(144) X(160) X(176) X(192) X(208) X(224) X(240) X(256)
#define WG_DECLARE_FOLD_WIDTH(BN)                                                                  \
    wg_kernel_fn wg_fold_kernel_bn##BN(int bk, int nseg);                                          \
    wg_kernel_fn wg_fold_any_kernel_bn##BN(int bk, int nseg);                                      \
    wg_kernel_fn wg_rowfold_kernel_bn##BN(int bk, int nseg);
WG_WIDTHS(WG_DECLARE_FOLD_WIDTH)
#undef WG_DECLARE_FOLD_WIDTH
/* The folded kernels reading the weights in place
 * (polyphase_wgmma_fold_inplace_tf32, INPLACE) of width BN (every width of
 * WG_WIDTHS) for bk 16 or 32, nseg 1 or 2 and S a power of two or not,
 * defined by WG_FOLD_INPLACE_KERNELS_OF_WIDTH
 * (kernels/polyphase_wgmma_inplace.cuh) in kernels/polyphase_wgmma_fold_inplace*.cu. */
#define WG_DECLARE_FOLD_INPLACE_WIDTH(BN) wg_kernel_fn wg_fold_inplace_kernel_bn##BN(int bk, int nseg, bool pow2);
WG_WIDTHS(WG_DECLARE_FOLD_INPLACE_WIDTH)
#undef WG_DECLARE_FOLD_INPLACE_WIDTH
#define WG_SPLIT3_WIDTHS(X) X(64) X(80) X(96) X(112) X(128) X(144) X(160)
#define WG_DECLARE_FOLD_SPLIT3_WIDTH(BN)                                                           \
    wg_kernel_fn wg_fold_split3_kernel_bn##BN(int bk, int nseg);                                   \
    wg_kernel_fn wg_fold_any_split3_kernel_bn##BN(int bk, int nseg);
WG_SPLIT3_WIDTHS(WG_DECLARE_FOLD_SPLIT3_WIDTH)
#undef WG_DECLARE_FOLD_SPLIT3_WIDTH
/* The kernels with 256 output channels a block (each consumer warpgroup
 * two 64-channel blocks of one tile, MH = 2) of width BN (64 to
 * WG_MAX_BN_WIDE_M: BN accumulators a thread) for bk 16 or 32: folded
 * (knob co_block = 256 of polyphase_wgmma_fold_tf32) by
 * WG_FOLD_WIDE_KERNELS_OF_WIDTH in kernels/polyphase_wgmma_fold_wide.cu (S
 * a power of two) and kernels/polyphase_wgmma_fold_any_wide.cu (any other
 * S); the stride phases apart (polyphase_wgmma_wide_tf32) by
 * WG_WIDE_KERNELS_OF_WIDTH in kernels/polyphase_wgmma_wide.cu. */
#define WG_WIDE_M_KERNELS_OF_WIDTH_AS(NAME, BN, FOLD, ANY)                                         \
    wg_kernel_fn NAME(int bk)                                                                      \
    {                                                                                              \
        return bk == 16 ? polyphase_wgmma_kernel<BN, 16, 1, false, 0, FOLD, 2, ANY>                \
                        : polyphase_wgmma_kernel<BN, 32, 1, false, 0, FOLD, 2, ANY>;               \
    }
#define WG_FOLD_WIDE_KERNELS_OF_WIDTH(BN)                                                          \
    WG_WIDE_M_KERNELS_OF_WIDTH_AS(wg_fold_wide_kernel_bn##BN, BN, true, false)
#define WG_FOLD_ANY_WIDE_KERNELS_OF_WIDTH(BN)                                                      \
    WG_WIDE_M_KERNELS_OF_WIDTH_AS(wg_fold_any_wide_kernel_bn##BN, BN, true, true)
#define WG_WIDE_KERNELS_OF_WIDTH(BN) WG_WIDE_M_KERNELS_OF_WIDTH_AS(wg_wide_kernel_bn##BN, BN, false, false)
#define WG_WIDE_M_WIDTHS(X) X(64) X(80) X(96) X(112) X(128) X(144) X(160)
#define WG_DECLARE_WIDE_M_WIDTH(BN)                                                                \
    wg_kernel_fn wg_fold_wide_kernel_bn##BN(int bk);                                               \
    wg_kernel_fn wg_fold_any_wide_kernel_bn##BN(int bk);                                           \
    wg_kernel_fn wg_wide_kernel_bn##BN(int bk);
WG_WIDE_M_WIDTHS(WG_DECLARE_WIDE_M_WIDTH)
#undef WG_DECLARE_WIDE_M_WIDTH
/* The split-K kernels (polyphase_wgmma_splitk_tf32: TF32, channels as M,
 * KSPLIT; src/lib/split_k.h) and the cluster kernels
 * (polyphase_wgmma_cluster_tf32: CLUSTER = 2) of width BN (WG_SPLITK_WIDTHS,
 * WG_CLUSTER_WIDTHS) for bk 16 or 32 and nseg 1 or 2: unfolded in
 * kernels/polyphase_wgmma_{splitk,cluster}.cu, folded in
 * kernels/polyphase_wgmma_{splitk,cluster}_fold.cu (S a power of two) and
 * kernels/polyphase_wgmma_{splitk,cluster}_fold_any.cu (any other S). */
#define WG_CHANNELS_M_OF(BN, FOLD, ANY, KSPLIT, CLUSTER, STEP)                                     \
    (bk == 16 ? (nseg == 1 ? polyphase_wgmma_kernel<BN, 16, 1, false, 0, FOLD, 1, ANY, KSPLIT, CLUSTER, STEP> \
                           : polyphase_wgmma_kernel<BN, 16, 2, false, 0, FOLD, 1, ANY, KSPLIT, CLUSTER, STEP>) \
              : (nseg == 1 ? polyphase_wgmma_kernel<BN, 32, 1, false, 0, FOLD, 1, ANY, KSPLIT, CLUSTER, STEP> \
                           : polyphase_wgmma_kernel<BN, 32, 2, false, 0, FOLD, 1, ANY, KSPLIT, CLUSTER, STEP>))
#define WG_CHANNELS_M_KERNELS_OF_WIDTH(NAME, BN, FOLD, ANY, KSPLIT, CLUSTER, STEP)                 \
    wg_kernel_fn NAME(int bk, int nseg) { return WG_CHANNELS_M_OF(BN, FOLD, ANY, KSPLIT, CLUSTER, STEP); }
#define WG_SPLITK_KERNELS_OF_WIDTH(BN)                                                             \
    WG_CHANNELS_M_KERNELS_OF_WIDTH(wg_splitk_kernel_bn##BN, BN, false, false, true, 1, false)
#define WG_SPLITK_FOLD_KERNELS_OF_WIDTH(BN)                                                        \
    WG_CHANNELS_M_KERNELS_OF_WIDTH(wg_splitk_fold_kernel_bn##BN, BN, true, false, true, 1, false)
#define WG_SPLITK_FOLD_ANY_KERNELS_OF_WIDTH(BN)                                                    \
    WG_CHANNELS_M_KERNELS_OF_WIDTH(wg_splitk_fold_any_kernel_bn##BN, BN, true, true, true, 1, false)
#define WG_CLUSTER_KERNELS_OF_WIDTH(BN)                                                            \
    WG_CHANNELS_M_KERNELS_OF_WIDTH(wg_cluster_kernel_bn##BN, BN, false, false, false, 2, false)
#define WG_CLUSTER_FOLD_KERNELS_OF_WIDTH(BN)                                                       \
    WG_CHANNELS_M_KERNELS_OF_WIDTH(wg_cluster_fold_kernel_bn##BN, BN, true, false, false, 2, false)
#define WG_CLUSTER_FOLD_ANY_KERNELS_OF_WIDTH(BN)                                                   \
    WG_CHANNELS_M_KERNELS_OF_WIDTH(wg_cluster_fold_any_kernel_bn##BN, BN, true, true, false, 2, false)
/* Few widths: split-K is for shapes of few tiles, which the narrower widths
 * multiply; clusters for layers of many channels, whose tiles are few */
#define WG_SPLITK_WIDTHS(X) X(64) X(96) X(128) X(192) X(256)
#define WG_CLUSTER_WIDTHS(X) X(64) X(96) X(128) X(192) X(256)
#define WG_DECLARE_CHANNELS_M_WIDTH(BN, KIND)                                                      \
    wg_kernel_fn wg_##KIND##_kernel_bn##BN(int bk, int nseg);                                      \
    wg_kernel_fn wg_##KIND##_fold_kernel_bn##BN(int bk, int nseg);                                 \
    wg_kernel_fn wg_##KIND##_fold_any_kernel_bn##BN(int bk, int nseg);
/* Split-K at float32 accuracy (polyphase_wgmma_splitk_3xtf32: KSPLIT and
 * SPLIT3, channels as M): split-K's widths within WG_MAX_BN_SPLIT3, for
 * bk 8, 16 or 32 and nseg 1 or 2; FOLD_KIND 0 unfolded, 1 folded with
 * S a power of two, 2 any other S. Split-K touches only the K walk's
 * bounds and the epilogue's stores, 3xTF32 only the producer's split and
 * the stage's sums: the two compose unchanged. Defined by
 * WG_SPLITK_SPLIT3{,_FOLD,_FOLD_ANY}_KERNELS_OF_WIDTH in
 * kernels/polyphase_wgmma_splitk{,_fold,_fold_any}_3xtf32.cu. */
#define WG_SPLITK_SPLIT3_WIDTHS(X) X(64) X(96) X(128)
#define WG_SPLITK_SPLIT3_OF(BN, BK, NSEG, FOLD_KIND)                                               \
    polyphase_wgmma_kernel<BN, BK, NSEG, true, 0, ((FOLD_KIND) > 0), 1, ((FOLD_KIND) == 2), true>
#define WG_SPLITK_SPLIT3_KERNELS_OF_WIDTH(BN)                                                      \
    WG_BK_8_16_32_KERNELS_AS(wg_splitk_split3_kernel_bn##BN, WG_SPLITK_SPLIT3_OF, BN, 0)
#define WG_SPLITK_SPLIT3_FOLD_KERNELS_OF_WIDTH(BN)                                                 \
    WG_BK_8_16_32_KERNELS_AS(wg_splitk_split3_fold_kernel_bn##BN, WG_SPLITK_SPLIT3_OF, BN, 1)
#define WG_SPLITK_SPLIT3_FOLD_ANY_KERNELS_OF_WIDTH(BN)                                             \
    WG_BK_8_16_32_KERNELS_AS(wg_splitk_split3_fold_any_kernel_bn##BN, WG_SPLITK_SPLIT3_OF, BN, 2)
#define WG_DECLARE_SPLITK_WIDTH(BN) WG_DECLARE_CHANNELS_M_WIDTH(BN, splitk)
#define WG_DECLARE_SPLITK_SPLIT3_WIDTH(BN) WG_DECLARE_CHANNELS_M_WIDTH(BN, splitk_split3)
#define WG_DECLARE_CLUSTER_WIDTH(BN) WG_DECLARE_CHANNELS_M_WIDTH(BN, cluster)
WG_SPLITK_WIDTHS(WG_DECLARE_SPLITK_WIDTH)
WG_SPLITK_SPLIT3_WIDTHS(WG_DECLARE_SPLITK_SPLIT3_WIDTH)
WG_CLUSTER_WIDTHS(WG_DECLARE_CLUSTER_WIDTH)
#undef WG_DECLARE_SPLITK_WIDTH
#undef WG_DECLARE_SPLITK_SPLIT3_WIDTH
#undef WG_DECLARE_CLUSTER_WIDTH
#undef WG_DECLARE_CHANNELS_M_WIDTH
/* Split-K and clusters with 256 output channels a block (knob co_block =
 * 256, MH = 2): the widths up to WG_MAX_BN_WIDE_M, unfolded or folded
 * (pow2: S a power of two), for bk 16 or 32, defined by
 * WG_SPLITK_WIDE_KERNELS_OF_WIDTH in kernels/polyphase_wgmma_splitk_wide.cu
 * and WG_CLUSTER_WIDE_KERNELS_OF_WIDTH in kernels/polyphase_wgmma_cluster_wide.cu. */
#define WG_WIDE_M_OF(BN, FOLD, ANY, KSPLIT, CLUSTER)                                               \
    (bk == 16 ? polyphase_wgmma_kernel<BN, 16, 1, false, 0, FOLD, 2, ANY, KSPLIT, CLUSTER>         \
              : polyphase_wgmma_kernel<BN, 32, 1, false, 0, FOLD, 2, ANY, KSPLIT, CLUSTER>)
#define WG_WIDE_M_ANY_FOLD_OF_WIDTH(NAME, BN, KSPLIT, CLUSTER)                                     \
    wg_kernel_fn NAME(int bk, bool fold, bool pow2)                                                \
    {                                                                                              \
        return !fold ? WG_WIDE_M_OF(BN, false, false, KSPLIT, CLUSTER)                             \
               : pow2 ? WG_WIDE_M_OF(BN, true, false, KSPLIT, CLUSTER)                             \
                      : WG_WIDE_M_OF(BN, true, true, KSPLIT, CLUSTER);                             \
    }
#define WG_SPLITK_WIDE_KERNELS_OF_WIDTH(BN) WG_WIDE_M_ANY_FOLD_OF_WIDTH(wg_splitk_wide_kernel_bn##BN, BN, true, 1)
#define WG_CLUSTER_WIDE_KERNELS_OF_WIDTH(BN) WG_WIDE_M_ANY_FOLD_OF_WIDTH(wg_cluster_wide_kernel_bn##BN, BN, false, 2)
#define WG_SPLITK_WIDE_WIDTHS(X) X(64) X(96) X(128)
#define WG_CLUSTER_WIDE_WIDTHS(X) X(64) X(96) X(128)
#define WG_DECLARE_SPLITK_WIDE_WIDTH(BN) wg_kernel_fn wg_splitk_wide_kernel_bn##BN(int bk, bool fold, bool pow2);
#define WG_DECLARE_CLUSTER_WIDE_WIDTH(BN) wg_kernel_fn wg_cluster_wide_kernel_bn##BN(int bk, bool fold, bool pow2);
WG_SPLITK_WIDE_WIDTHS(WG_DECLARE_SPLITK_WIDE_WIDTH)
WG_CLUSTER_WIDE_WIDTHS(WG_DECLARE_CLUSTER_WIDE_WIDTH)
#undef WG_DECLARE_SPLITK_WIDE_WIDTH
#undef WG_DECLARE_CLUSTER_WIDE_WIDTH
/* Ping-pong (polyphase_wgmma_pingpong_tf32: PING, TF32, 64 output
 * channels as M, each consumer warpgroup a whole tile in turn): the kernel
 * of width BN (WG_PINGPONG_WIDTHS) for bk 8, 16 or 32, its rows whole or
 * segmented (SEG, knob seg: wgmma_flat.h), defined by
 * WG_PINGPONG_KERNELS_OF_WIDTH in kernels/polyphase_wgmma_pingpong.cu. */
#define WG_PING_OF(BN, BK, SEG, RES)                                                               \
    polyphase_wgmma_kernel<BN, BK, 1, false, 0, false, 1, false, false, 1, false, 0, true, SEG, false, RES>
#define WG_PING_SEG_OF(BN, SEG, RES)                                                               \
    (bk == 8    ? WG_PING_OF(BN, 8, SEG, RES)                                                      \
     : bk == 16 ? WG_PING_OF(BN, 16, SEG, RES)                                                     \
                : WG_PING_OF(BN, 32, SEG, RES))
#define WG_PINGPONG_KERNELS_OF_WIDTH(BN)                                                           \
    wg_kernel_fn wg_pingpong_kernel_bn##BN(int bk, bool seg, bool res)                             \
    {                                                                                              \
        if (res)                                                                                   \
            return seg ? WG_PING_SEG_OF(BN, true, true) : WG_PING_SEG_OF(BN, false, true);         \
        return seg ? WG_PING_SEG_OF(BN, true, false) : WG_PING_SEG_OF(BN, false, false);           \
    }
#define WG_PINGPONG_WIDTHS(X) X(64) X(128) X(192) X(256)
#define WG_DECLARE_PINGPONG_WIDTH(BN) wg_kernel_fn wg_pingpong_kernel_bn##BN(int bk, bool seg, bool res);
WG_PINGPONG_WIDTHS(WG_DECLARE_PINGPONG_WIDTH)
#define WG_DECLARE_ROWFOLD_PINGPONG_WIDTH(BN) wg_kernel_fn wg_rowfold_pingpong_kernel_bn##BN(int bk, bool res);
WG_PINGPONG_WIDTHS(WG_DECLARE_ROWFOLD_PINGPONG_WIDTH)
#undef WG_DECLARE_ROWFOLD_PINGPONG_WIDTH
#undef WG_DECLARE_PINGPONG_WIDTH
/* Row pairs (polyphase_wgmma_pair_tf32: PAIR, TF32, up to 64 output
 * channels as M, each consumer warpgroup one row of a pair over the same
 * columns; src/lib/row_pairs.h): the kernel of width BN (WG_PAIR_WIDTHS)
 * for bk 8 or 16, defined by WG_PAIR_KERNELS_OF_WIDTH in
 * kernels/polyphase_wgmma_pair.cu. A stage holds two tap rows' weights
 * beside bn positions of input: at bk 32, kb57's class would fit 2
 * stages at bn 256 (3 at bn 128), so it is not compiled. */
#define WG_PAIR_OF(BN, BK)                                                                         \
    polyphase_wgmma_kernel<BN, BK, 2, false, 0, false, 1, false, false, 1, false, 0, false, false, false, \
                           false, false, false, true>
#define WG_PAIR_KERNELS_OF_WIDTH(BN)                                                               \
    wg_kernel_fn wg_pair_kernel_bn##BN(int bk) { return bk == 8 ? WG_PAIR_OF(BN, 8) : WG_PAIR_OF(BN, 16); }
#define WG_PAIR_WIDTHS(X) X(128) X(192) X(256)
#define WG_DECLARE_PAIR_WIDTH(BN) wg_kernel_fn wg_pair_kernel_bn##BN(int bk);
WG_PAIR_WIDTHS(WG_DECLARE_PAIR_WIDTH)
#undef WG_DECLARE_PAIR_WIDTH
/* Positions as M (pos_m): the kernel of width BN (64, 128 or 256) for the
 * channels ncos (8 to 32), bk and the precision (parts 1: TF32, bk 8, 16
 * or 32; 2: 3xTF32, bk 8 or 16), defined by WG_POSM_KERNELS_OF_WIDTH in
 * kernels/polyphase_wgmma_posm.cu. WG_POSM_OF_NCOS_FOLD: the kernel for
 * the channels ncos (N, rounded up to 8), unfolded or (FOLD, ANY) folded;
 * the unfolded ones' template is the default's <BN, BK, 2, SPLIT3, N>. */
#define WG_POSM_OF_NCOS_FOLD(BN, BK, SPLIT3, FOLD, ANY)                                            \
    (ncos <= 8    ? polyphase_wgmma_kernel<BN, BK, 2, SPLIT3, 8, FOLD, 1, ANY>                     \
     : ncos <= 16 ? polyphase_wgmma_kernel<BN, BK, 2, SPLIT3, 16, FOLD, 1, ANY>                    \
     : ncos <= 24 ? polyphase_wgmma_kernel<BN, BK, 2, SPLIT3, 24, FOLD, 1, ANY>                    \
                  : polyphase_wgmma_kernel<BN, BK, 2, SPLIT3, 32, FOLD, 1, ANY>)
#define WG_POSM_OF_NCOS(BN, BK, SPLIT3) WG_POSM_OF_NCOS_FOLD(BN, BK, SPLIT3, false, false)
#define WG_POSM_KERNELS_OF_WIDTH(BN)                                                               \
    wg_kernel_fn wg_posm_kernel_bn##BN(int bk, int ncos, int parts)                               \
    {                                                                                              \
        if (parts == 2)                                                                            \
            return bk == 8 ? WG_POSM_OF_NCOS(BN, 8, true) : WG_POSM_OF_NCOS(BN, 16, true);         \
        return bk == 8    ? WG_POSM_OF_NCOS(BN, 8, false)                                          \
               : bk == 16 ? WG_POSM_OF_NCOS(BN, 16, false)                                         \
                          : WG_POSM_OF_NCOS(BN, 32, false);                                        \
    }
#define WG_POSM_WIDTHS(X) X(64) X(128) X(256)
/* The fold with positions as M at float32 accuracy
 * (polyphase_wgmma_fold_posm_3xtf32: FOLD, NCOS and SPLIT3): positions of
 * the folded problem as M, its S x cout_g channels (up to 32) as N, the
 * epilogue the fold's map from the fragments (wg_posm_fold_store), for bk
 * 8 or 16 and the posm widths, S a power of two or not (ANY). Defined by
 * WG_FOLD_POSM_SPLIT3_KERNELS_OF_WIDTH in
 * kernels/polyphase_wgmma_fold_posm_3xtf32.cu and
 * WG_FOLD_ANY_POSM_SPLIT3_KERNELS_OF_WIDTH in
 * kernels/polyphase_wgmma_fold_any_posm_3xtf32.cu. */
#define WG_FOLD_POSM_SPLIT3_OF(BN, BK, ANY) WG_POSM_OF_NCOS_FOLD(BN, BK, true, true, ANY)
#define WG_FOLD_POSM_SPLIT3_KERNELS_OF_WIDTH_AS(NAME, BN, ANY)                                     \
    wg_kernel_fn NAME(int bk, int ncos)                                                            \
    {                                                                                              \
        return bk == 8 ? WG_FOLD_POSM_SPLIT3_OF(BN, 8, ANY) : WG_FOLD_POSM_SPLIT3_OF(BN, 16, ANY); \
    }
#define WG_FOLD_POSM_SPLIT3_KERNELS_OF_WIDTH(BN)                                                   \
    WG_FOLD_POSM_SPLIT3_KERNELS_OF_WIDTH_AS(wg_fold_posm_split3_kernel_bn##BN, BN, false)
#define WG_FOLD_ANY_POSM_SPLIT3_KERNELS_OF_WIDTH(BN)                                               \
    WG_FOLD_POSM_SPLIT3_KERNELS_OF_WIDTH_AS(wg_fold_any_posm_split3_kernel_bn##BN, BN, true)
#define WG_DECLARE_POSM_WIDTH(BN)                                                                  \
    wg_kernel_fn wg_posm_kernel_bn##BN(int bk, int ncos, int parts);                               \
    wg_kernel_fn wg_fold_posm_split3_kernel_bn##BN(int bk, int ncos);                              \
    wg_kernel_fn wg_fold_any_posm_split3_kernel_bn##BN(int bk, int ncos);
WG_POSM_WIDTHS(WG_DECLARE_POSM_WIDTH)
#undef WG_DECLARE_POSM_WIDTH
/* polyphase_wgmma_colsum_tf32: the kernel of width BN (64 or 128) for bk
 * (8, 16 or 32), the channels ncos (8 to 32) and the taps along a row (3, 5
 * or 7: wg_colsum_taps_compiled), or null where the column sets'
 * accumulators do not fit (wg_colsum_fits), defined by
 * WG_COLSUM_KERNELS_OF_WIDTH in kernels/polyphase_wgmma_colsum_bn*.cu. */
template <int BN, int BK, int NCOS, int KW>
wg_kernel_fn wg_colsum_kernel_of()
{
    if constexpr (wg_colsum_fits(BN, BK, NCOS, KW))
        return polyphase_wgmma_kernel<BN, BK, 2, false, NCOS, false, 1, false, false, 1, false, KW>;
    else
        return nullptr;
}
#define WG_COLSUM_OF_NCOS(BN, BK, KW)                                                              \
    (ncos <= 8    ? wg_colsum_kernel_of<BN, BK, 8, KW>()                                           \
     : ncos <= 16 ? wg_colsum_kernel_of<BN, BK, 16, KW>()                                          \
     : ncos <= 24 ? wg_colsum_kernel_of<BN, BK, 24, KW>()                                          \
                  : wg_colsum_kernel_of<BN, BK, 32, KW>())
#define WG_COLSUM_OF_TAPS(BN, BK)                                                                  \
    (kw == 3 ? WG_COLSUM_OF_NCOS(BN, BK, 3) : kw == 5 ? WG_COLSUM_OF_NCOS(BN, BK, 5)               \
                                            : WG_COLSUM_OF_NCOS(BN, BK, 7))
#define WG_COLSUM_KERNELS_OF_WIDTH(BN)                                                             \
    wg_kernel_fn wg_colsum_kernel_bn##BN(int bk, int ncos, int kw)                                \
    {                                                                                              \
        return bk == 8    ? WG_COLSUM_OF_TAPS(BN, 8)                                               \
               : bk == 16 ? WG_COLSUM_OF_TAPS(BN, 16)                                              \
                          : WG_COLSUM_OF_TAPS(BN, 32);                                             \
    }
#define WG_COLSUM_WIDTHS(X) X(64) X(128)
#define WG_DECLARE_COLSUM_WIDTH(BN) wg_kernel_fn wg_colsum_kernel_bn##BN(int bk, int ncos, int kw);
WG_COLSUM_WIDTHS(WG_DECLARE_COLSUM_WIDTH)
#undef WG_DECLARE_COLSUM_WIDTH
/* The producer's octet steps (STEP: tight rows, src/lib/wgmma_flat.h),
 * for polyphase_wgmma_tf32 and unfolded split-K, bk 16 or 32, nseg 1 or
 * 2: kernels/polyphase_wgmma_step_bn*.cu and
 * kernels/polyphase_wgmma_splitk_step.cu. */
#define WG_STEP_KERNELS_OF_WIDTH(BN)                                                               \
    WG_CHANNELS_M_KERNELS_OF_WIDTH(wg_step_kernel_bn##BN, BN, false, false, false, 1, true)
#define WG_SPLITK_STEP_KERNELS_OF_WIDTH(BN)                                                        \
    WG_CHANNELS_M_KERNELS_OF_WIDTH(wg_splitk_step_kernel_bn##BN, BN, false, false, true, 1, true)
#define WG_DECLARE_STEP_WIDTH(BN) wg_kernel_fn wg_step_kernel_bn##BN(int bk, int nseg);
#define WG_DECLARE_SPLITK_STEP_WIDTH(BN) wg_kernel_fn wg_splitk_step_kernel_bn##BN(int bk, int nseg);
WG_WIDTHS(WG_DECLARE_STEP_WIDTH)
WG_SPLITK_WIDTHS(WG_DECLARE_SPLITK_STEP_WIDTH)
#undef WG_DECLARE_STEP_WIDTH
#undef WG_DECLARE_SPLITK_STEP_WIDTH
#define WG_DECLARE_WIDTH(BN) wg_kernel_fn wg_kernel_bn##BN(int bk, int nseg);
#define WG_DECLARE_SPLIT3_WIDTH(BN) wg_kernel_fn wg_split3_kernel_bn##BN(int bk, int nseg);
#define WG_DECLARE_SPLIT3_TURNS_WIDTH(BN) wg_kernel_fn wg_split3_turns_kernel_bn##BN(int bk, int nseg);
WG_WIDTHS(WG_DECLARE_WIDTH)
WG_SPLIT3_WIDTHS(WG_DECLARE_SPLIT3_WIDTH)
WG_SPLIT3_WIDTHS(WG_DECLARE_SPLIT3_TURNS_WIDTH)
#undef WG_DECLARE_WIDTH
#undef WG_DECLARE_SPLIT3_WIDTH
#undef WG_DECLARE_SPLIT3_TURNS_WIDTH
#endif /* CONVT_HAVE_WGMMA */

#endif /* CONVT_KERNELS_POLYPHASE_WGMMA_CUH */
