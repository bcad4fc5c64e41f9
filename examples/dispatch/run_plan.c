/* A program that uses libconvt the way a model would: load the selection
 * table convt-bench wrote, ask for a plan for one shape, run it, and check
 * the output against libconvt's float64 reference.
 *
 *   cc run_plan.c $(pkg-config --cflags --libs convt) -o run_plan
 *   ./run_plan TABLE.selection.json [DEVICE]      (DEVICE -1: the CPU; default -1)
 *
 * The shape: a 2-D ConvTranspose (8 -> 16 channels, 3x3, stride 2, pad 1,
 * output_padding 1, bias) on a 2 x 8 x 17 x 19 input, tier tf32. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <convt/convt.h>
#include <convt/reference.h>

#ifdef WITH_CUDA
#include <cuda_runtime_api.h>
#endif

static float *filled(int64_t n, unsigned seed)
{
    float *v = malloc((size_t)n * sizeof *v);
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = (float)(seed >> 8) / (float)(1 << 24) * 2.0f - 1.0f;
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s TABLE.selection.json [DEVICE]\n", argv[0]);
        return 2;
    }
    int device = argc > 2 ? atoi(argv[2]) : -1;
    convt_err e = {{0}, 0};
    convt_ctx *ctx;
    convt_table *table;
    convt_plan *plan;
    if (convt_ctx_create(device, &ctx, &e) || convt_table_load(ctx, argv[1], 0, &table, &e)) {
        fprintf(stderr, "run_plan: %s\n", e.msg);
        return 1;
    }
    char line[1024];
    convt_table_describe(table, line, sizeof line);
    printf("table: %s\n", line);

    convt_problem p = convt_problem_default(2);
    snprintf(p.name, sizeof p.name, "example");
    p.n = 2, p.cin = 8, p.cout = 16, p.bias = true;
    p.in[0] = 17, p.in[1] = 19, p.k[0] = p.k[1] = 3;
    p.stride[0] = p.stride[1] = 2, p.pad[0] = p.pad[1] = 1, p.out_pad[0] = p.out_pad[1] = 1;
    convt_tier tier = CONVT_TIER_TF32;
    if (convt_plan_create(ctx, table, &p, tier, &plan, &e)) {
        fprintf(stderr, "run_plan: %s\n", e.msg);
        return 1;
    }
    convt_plan_describe(plan, line, sizeof line);
    printf("plan: %s\n", line);

    int64_t nx = convt_x_elems(&p), nw = convt_w_elems(&p), ny = convt_y_elems(&p);
    float *x = filled(nx, 1), *w = filled(nw, 2), *b = filled(p.cout, 3);
    float *y = malloc((size_t)ny * sizeof *y);
    size_t ws = convt_plan_workspace_size(plan);
    int rc;
    if (device < 0) {
        void *work = ws ? malloc(ws) : NULL;
        rc = convt_execute(plan, x, w, b, y, work, NULL, &e);
        free(work);
    } else {
#ifdef WITH_CUDA
        float *dx, *dw, *db, *dy;
        void *work = NULL;
        cudaMalloc((void **)&dx, nx * 4), cudaMalloc((void **)&dw, nw * 4);
        cudaMalloc((void **)&db, p.cout * 4), cudaMalloc((void **)&dy, ny * 4);
        if (ws)
            cudaMalloc(&work, ws);
        cudaMemcpy(dx, x, nx * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(dw, w, nw * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(db, b, p.cout * 4, cudaMemcpyHostToDevice);
        rc = convt_execute(plan, dx, dw, db, dy, work, NULL, &e);
        if (rc == 0 && cudaMemcpy(y, dy, ny * 4, cudaMemcpyDeviceToHost) != cudaSuccess)
            rc = -1, snprintf(e.msg, sizeof e.msg, "the kernel failed");
        cudaFree(dx), cudaFree(dw), cudaFree(db), cudaFree(dy), cudaFree(work);
#else
        fprintf(stderr, "run_plan: built without CUDA (define WITH_CUDA and link cudart)\n");
        return 2;
#endif
    }
    if (rc) {
        fprintf(stderr, "run_plan: %s\n", e.msg);
        return 1;
    }
    double *ref = malloc((size_t)ny * sizeof *ref), *mag = malloc((size_t)ny * sizeof *mag);
    convt_reference(&p, x, w, b, ref, mag);
    convt_tolerance tol = convt_tolerance_default(tier);
    convt_error_stats st;
    convt_compare_host(y, ref, mag, ny, &tol, &st);
    convt_error_describe(&st, &tol, line, sizeof line);
    bool ok = convt_error_passes(&st, &tol);
    printf("check against the float64 reference (%s tolerance): %s (normwise %.2e)\n",
           convt_tier_name(tier), ok ? "ok" : line, convt_normwise_error(&st));
    convt_plan_destroy(plan);
    convt_table_destroy(table);
    convt_ctx_destroy(ctx);
    free(x), free(w), free(b), free(y), free(ref), free(mag);
    return ok ? 0 : 1;
}
