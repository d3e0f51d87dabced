/* A host-only build (GPUREGRESS_CUDA OFF) has no GPU timing helpers (gpu_timing.c): this keeps
 * the test helpers library non-empty. */
int gr_test_util_host_only;
