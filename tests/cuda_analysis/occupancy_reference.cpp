// Prints what the CUDA toolkit's cuda_occupancy.h computes, for tests/cuda_analysis/test_occupancy.py.
// Header-only: g++ -std=c++11 -I<toolkit>/include occupancy_reference.cpp; no CUDA runtime.
//
// stdin, one case per line (whitespace-separated integers):
//   major minor maxThreadsPerBlock maxThreadsPerSM regsPerBlock regsPerSM warpSize
//   sharedPerBlock sharedPerSM numSms sharedPerBlockOptin reservedSharedPerBlock
//   numRegs staticShared dynamicShared blockSize carveout(-1 = default) optIn barriers
// stdout, one line per case:
//   status activeBlocks limitWarps limitRegs limitShared limitBlocks limitBarriers
//   allocatedRegsPerBlock allocatedSharedPerBlock limitingFactors bestBlockSize minGridSize
// INT_MAX in a limit means "no bound".
#include <cstdio>
#include <cuda_occupancy.h>

int main() {
    long long v[19];
    while (true) {
        for (int i = 0; i < 19; ++i) {
            if (std::scanf("%lld", &v[i]) != 1) return 0;
        }
        cudaOccDeviceProp prop;
        prop.computeMajor = (int)v[0];
        prop.computeMinor = (int)v[1];
        prop.maxThreadsPerBlock = (int)v[2];
        prop.maxThreadsPerMultiprocessor = (int)v[3];
        prop.regsPerBlock = (int)v[4];
        prop.regsPerMultiprocessor = (int)v[5];
        prop.warpSize = (int)v[6];
        prop.sharedMemPerBlock = (size_t)v[7];
        prop.sharedMemPerMultiprocessor = (size_t)v[8];
        prop.numSms = (int)v[9];
        prop.sharedMemPerBlockOptin = (size_t)v[10];
        prop.reservedSharedMemPerBlock = (size_t)v[11];

        cudaOccFuncAttributes attr;
        attr.maxThreadsPerBlock = (int)v[2];
        attr.numRegs = (int)v[12];
        attr.sharedSizeBytes = (size_t)v[13];
        attr.partitionedGCConfig = PARTITIONED_GC_OFF;
        // opt-in: the launcher sets the kernel's dynamic limit to what it uses
        attr.shmemLimitConfig = v[17] ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
        attr.maxDynamicSharedSizeBytes = v[17] ? (size_t)v[14] : 0;
        attr.numBlockBarriers = (int)v[18];
        attr.virtualResourceCount = 0;

        cudaOccDeviceState state;
        state.carveoutConfig = (int)v[16];

        cudaOccResult result;
        cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(
            &result, &prop, &attr, &state, (int)v[15], (size_t)v[14]);
        int minGrid = 0, bestBlock = 0;
        cudaOccError status2 = cudaOccMaxPotentialOccupancyBlockSize(
            &minGrid, &bestBlock, &prop, &attr, &state, (size_t)v[14]);
        if (status != CUDA_OCC_SUCCESS || status2 != CUDA_OCC_SUCCESS) {
            std::printf("%d %d\n", (int)status, (int)status2);
            continue;
        }
        std::printf("0 %d %d %d %d %d %d %d %zu %u %d %d\n", result.activeBlocksPerMultiprocessor,
                    result.blockLimitWarps, result.blockLimitRegs, result.blockLimitSharedMem,
                    result.blockLimitBlocks, result.blockLimitBarriers,
                    result.allocatedRegistersPerBlock, result.allocatedSharedMemPerBlock,
                    result.limitingFactors, bestBlock, minGrid);
    }
}
