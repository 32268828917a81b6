-- Trimmed from a real Nsight Systems SQLite export by trim_nsys_export.py (see README.md).
BEGIN TRANSACTION;
CREATE TABLE StringIds (
    -- Consolidation of repetitive string values.

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- ID reference value.
    value                       TEXT      NOT NULL                     -- String value.
);
INSERT INTO StringIds VALUES(108,'cudaMalloc_v3020');
INSERT INTO StringIds VALUES(110,'_ZN2at6native54_GLOBAL__N__4b00444d_21_DistributionNormal_cu_0c5b6e8543distribution_elementwise_grid_stride_kernelIfLi4EZNS0_9templates4cuda20normal_and_transformIN3c108BFloat16EfPNS_17CUDAGeneratorImplEZZZNS4_13normal_kernelIS9_EEvRKNS_10TensorBaseEddT_ENKUlvE_clEvENKUlvE2_clEvEUlfE_EEvRNS_18TensorIteratorBaseET1_T2_EUlP24curandStatePhilox4_32_10E0_ZNS1_27distribution_nullary_kernelIS7_f6float4S9_SO_SH_EEvSJ_SL_RKT3_T4_EUlifE_EEvlNS_15PhiloxCudaStateESK_SL_');
INSERT INTO StringIds VALUES(111,'void at::native::<unnamed>::distribution_elementwise_grid_stride_kernel<float, (int)4, void at::native::templates::cuda::normal_and_transform<c10::BFloat16, float, at::CUDAGeneratorImpl *, void at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl *>(const at::TensorBase &, double, double, T1)::[lambda() (instance 1)]::operator ()() const::[lambda() (instance 4)]::operator ()() const::[lambda(float) (instance 1)]>(at::TensorIteratorBase &, T3, T4)::[lambda(curandStatePhilox4_32_10 *) (instance 2)], void at::native::<unnamed>::distribution_nullary_kernel<c10::BFloat16, float, float4, at::CUDAGeneratorImpl *, void at::native::templates::cuda::normal_and_transform<c10::BFloat16, float, at::CUDAGeneratorImpl *, void at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl *>(const at::TensorBase &, double, double, T1)::[lambda() (instance 1)]::operator ()() const::[lambda() (instance 4)]::operator ()() const::[lambda(float) (instance 1)]>(at::TensorIteratorBase &, T3, T4)::[lambda(curandStatePhilox4_32_10 *) (instance 2)], void at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl *>(const at::TensorBase &, double, double, T1)::[lambda() (instance 1)]::operator ()() const::[lambda() (instance 4)]::operator ()() const::[lambda(float) (instance 1)]>(at::TensorIteratorBase &, T4, const T5 &, T6)::[lambda(int, float) (instance 1)]>(long, at::PhiloxCudaState, T3, T4)');
INSERT INTO StringIds VALUES(112,'distribution_elementwise_grid_stride_kernel');
INSERT INTO StringIds VALUES(113,'_ZN2at6native60_GLOBAL__N__4c98d969_27_DistributionRandomKernel_cu_f88cee4443distribution_elementwise_grid_stride_kernelIjLi4EZZZNS0_9templates4cuda21random_from_to_kernelIPNS_17CUDAGeneratorImplEEEvRNS_18TensorIteratorBaseEmlT_ENKUlvE_clEvENKUlvE2_clEvEUlP24curandStatePhilox4_32_10E0_ZNS1_27distribution_nullary_kernelIlj5uint4S7_SF_ZZZS5_IS7_EvS9_mlSA_ENKSB_clEvENKSC_clEvEUljE_EEvS9_T2_RKT3_T4_EUlijE_EEvlNS_15PhiloxCudaStateET1_SJ_');
INSERT INTO StringIds VALUES(114,'cudaLaunchKernel_v7000');
INSERT INTO StringIds VALUES(115,'void at::native::<unnamed>::distribution_elementwise_grid_stride_kernel<unsigned int, (int)4, void at::native::templates::cuda::random_from_to_kernel<at::CUDAGeneratorImpl *>(at::TensorIteratorBase &, unsigned long, long, T1)::[lambda() (instance 1)]::operator ()() const::[lambda() (instance 4)]::operator ()() const::[lambda(curandStatePhilox4_32_10 *) (instance 2)], void at::native::<unnamed>::distribution_nullary_kernel<long, unsigned int, uint4, at::CUDAGeneratorImpl *, void at::native::templates::cuda::random_from_to_kernel<at::CUDAGeneratorImpl *>(at::TensorIteratorBase &, unsigned long, long, T1)::[lambda() (instance 1)]::operator ()() const::[lambda() (instance 4)]::operator ()() const::[lambda(curandStatePhilox4_32_10 *) (instance 2)], void at::native::templates::cuda::random_from_to_kernel<at::CUDAGeneratorImpl *>(at::TensorIteratorBase &, unsigned long, long, T1)::[lambda() (instance 1)]::operator ()() const::[lambda() (instance 4)]::operator ()() const::[lambda(unsigned int) (instance 1)]>(at::TensorIteratorBase &, T4, const T5 &, T6)::[lambda(int, unsigned int) (instance 1)]>(long, at::PhiloxCudaState, T3, T4)');
INSERT INTO StringIds VALUES(116,'cudaMemcpyAsync_v3020');
INSERT INTO StringIds VALUES(117,'cudaStreamSynchronize_v3020');
INSERT INTO StringIds VALUES(118,'_ZN2at6native29vectorized_elementwise_kernelILi8EZNS0_25bfloat16_copy_kernel_cudaERNS_18TensorIteratorBaseEEUlfE_St5arrayIPcLm2EEEEviT0_T1_');
INSERT INTO StringIds VALUES(119,'void at::native::vectorized_elementwise_kernel<(int)8, at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda(float) (instance 1)], std::array<char *, (unsigned long)2>>(int, T2, T3)');
INSERT INTO StringIds VALUES(120,'vectorized_elementwise_kernel');
INSERT INTO StringIds VALUES(123,'nvjet_tst_192x192_64x4_2x1_v_bz_coopB_TNN');
INSERT INTO StringIds VALUES(124,'_ZN77_GLOBAL__N__00000000_38___tmp_nvfuser_pointwise_f0_c1_r0_g4_cu_b58b53ee_5055629nvfuser_pointwise_f0_c1_r0_g4ENS_6TensorINS_8__bfloatELi3ELi3EEENS0_IfLi3ELi3EEE');
INSERT INTO StringIds VALUES(125,'_ZN84_GLOBAL__N__00000000_45___tmp_nvfuser_inner_persistent_f0_c1_r0_g2_cu_b58b53ee_5055636nvfuser_inner_persistent_f0_c1_r0_g2ENS_6TensorIfLi3ELi3EEENS0_IfLi2ELi2EEE');
INSERT INTO StringIds VALUES(126,'_ZN77_GLOBAL__N__00000000_38___tmp_nvfuser_pointwise_f0_c1_r0_g0_cu_b58b53ee_5055629nvfuser_pointwise_f0_c1_r0_g0ENS_6TensorIfLi2ELi2EEES1_');
INSERT INTO StringIds VALUES(127,'_ZN2at6native29vectorized_elementwise_kernelILi2ENS0_11FillFunctorIlEESt5arrayIPcLm1EEEEviT0_T1_');
INSERT INTO StringIds VALUES(131,'_ZN77_GLOBAL__N__00000000_38___tmp_nvfuser_reduction_f0_c1_r0_g3_cu_b58b53ee_5055629nvfuser_reduction_f0_c1_r0_g3ENS_6TensorIxLi1ELi1EEENS0_IfLi2ELi2EEENS0_IxLi0ELi0EEENS0_IfLi0ELi0EEES1_S1_NS0_IfLi1ELi1EEES1_');
INSERT INTO StringIds VALUES(133,'_ZN2at6native27unrolled_elementwise_kernelIZZZNS0_23direct_copy_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE1_clEvENKUlvE5_clEvEUlfE_St5arrayIPcLm2EELi8E23TrivialOffsetCalculatorILi1EjESB_NS0_6memory12LoadWithCastILi1EEENSC_13StoreWithCastILi1EEEEEviT_T0_T2_T3_T4_T5_');
INSERT INTO StringIds VALUES(134,'_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_');
INSERT INTO StringIds VALUES(137,'_ZN2at6native39_GLOBAL__N__df250f02_7_Loss_cu_5b0651e139nll_loss_backward_reduce_cuda_kernel_2dIflEEvPT_PKS3_PKT0_S6_S6_biill');
INSERT INTO StringIds VALUES(138,'_ZN84_GLOBAL__N__00000000_45___tmp_nvfuser_inner_persistent_f1_c1_r0_g2_cu_b58b53ee_5055636nvfuser_inner_persistent_f1_c1_r0_g2ENS_6TensorIfLi2ELi2EEES1_NS0_IfLi3ELi3EEE');
INSERT INTO StringIds VALUES(141,'_ZN77_GLOBAL__N__00000000_38___tmp_nvfuser_pointwise_f1_c1_r0_g1_cu_b58b53ee_5055629nvfuser_pointwise_f1_c1_r0_g1ENS_6TensorIfLi3ELi3EEENS0_INS_8__bfloatELi3ELi3EEE');
INSERT INTO StringIds VALUES(142,'cudaMemsetAsync_v3020');
INSERT INTO StringIds VALUES(143,'cuLaunchKernelEx');
INSERT INTO StringIds VALUES(144,'<unnamed>::nvfuser_pointwise_f0_c1_r0_g4(<unnamed>::Tensor<<unnamed>::__bfloat, (int)3, (int)3>, <unnamed>::Tensor<float, (int)3, (int)3>)');
INSERT INTO StringIds VALUES(145,'nvfuser_pointwise_f0_c1_r0_g4');
INSERT INTO StringIds VALUES(146,'cuLaunchKernel');
INSERT INTO StringIds VALUES(147,'<unnamed>::nvfuser_inner_persistent_f0_c1_r0_g2(<unnamed>::Tensor<float, (int)3, (int)3>, <unnamed>::Tensor<float, (int)2, (int)2>)');
INSERT INTO StringIds VALUES(148,'nvfuser_inner_persistent_f0_c1_r0_g2');
INSERT INTO StringIds VALUES(149,'<unnamed>::nvfuser_pointwise_f0_c1_r0_g0(<unnamed>::Tensor<float, (int)2, (int)2>, <unnamed>::Tensor<float, (int)2, (int)2>)');
INSERT INTO StringIds VALUES(150,'nvfuser_pointwise_f0_c1_r0_g0');
INSERT INTO StringIds VALUES(151,'void at::native::vectorized_elementwise_kernel<(int)2, at::native::FillFunctor<long>, std::array<char *, (unsigned long)1>>(int, T2, T3)');
INSERT INTO StringIds VALUES(152,'<unnamed>::nvfuser_reduction_f0_c1_r0_g3(<unnamed>::Tensor<long long, (int)1, (int)1>, <unnamed>::Tensor<float, (int)2, (int)2>, <unnamed>::Tensor<long long, (int)0, (int)0>, <unnamed>::Tensor<float, (int)0, (int)0>, <unnamed>::Tensor<long long, (int)1, (int)1>, <unnamed>::Tensor<long long, (int)1, (int)1>, <unnamed>::Tensor<float, (int)1, (int)1>, <unnamed>::Tensor<long long, (int)1, (int)1>)');
INSERT INTO StringIds VALUES(153,'nvfuser_reduction_f0_c1_r0_g3');
INSERT INTO StringIds VALUES(154,'void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 3)]::operator ()() const::[lambda() (instance 7)]::operator ()() const::[lambda(float) (instance 1)], std::array<char *, (unsigned long)2>, (int)8, TrivialOffsetCalculator<(int)1, unsigned int>, TrivialOffsetCalculator<(int)1, unsigned int>, at::native::memory::LoadWithCast<(int)1>, at::native::memory::StoreWithCast<(int)1>>(int, T1, T2, T4, T5, T6, T7)');
INSERT INTO StringIds VALUES(155,'unrolled_elementwise_kernel');
INSERT INTO StringIds VALUES(156,'nvjet_tst_256x128_64x4_1x2_h_bz_coopA_NNT');
INSERT INTO StringIds VALUES(157,'void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<float>, std::array<char *, (unsigned long)1>>(int, T2, T3)');
INSERT INTO StringIds VALUES(158,'void at::native::<unnamed>::nll_loss_backward_reduce_cuda_kernel_2d<float, long>(T1 *, const T1 *, const T2 *, const T1 *, const T1 *, bool, int, int, long, long)');
INSERT INTO StringIds VALUES(159,'nll_loss_backward_reduce_cuda_kernel_2d');
INSERT INTO StringIds VALUES(160,'nvjet_tst_192x192_64x3_1x2_h_bz_coopB_NTN');
INSERT INTO StringIds VALUES(161,'<unnamed>::nvfuser_inner_persistent_f1_c1_r0_g2(<unnamed>::Tensor<float, (int)2, (int)2>, <unnamed>::Tensor<float, (int)2, (int)2>, <unnamed>::Tensor<float, (int)3, (int)3>)');
INSERT INTO StringIds VALUES(162,'nvfuser_inner_persistent_f1_c1_r0_g2');
INSERT INTO StringIds VALUES(163,'<unnamed>::nvfuser_pointwise_f1_c1_r0_g1(<unnamed>::Tensor<float, (int)3, (int)3>, <unnamed>::Tensor<<unnamed>::__bfloat, (int)3, (int)3>)');
INSERT INTO StringIds VALUES(164,'nvfuser_pointwise_f1_c1_r0_g1');
INSERT INTO StringIds VALUES(165,'cudaDeviceSynchronize_v3020');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    demangledName               INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Kernel function name w/ templates
    shortName                   INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Base kernel function name
    mangledName                 INTEGER,                               -- REFERENCES StringIds(id) -- Raw C++ mangled kernel function name
    launchType                  INTEGER,                               -- REFERENCES ENUM_CUDA_KERNEL_LAUNCH_TYPE(id)
    cacheConfig                 INTEGER,                               -- REFERENCES ENUM_CUDA_FUNC_CACHE_CONFIG(id)
    registersPerThread          INTEGER   NOT NULL,                    -- Number of registers required for each thread executing the kernel.
    gridX                       INTEGER   NOT NULL,                    -- X-dimension grid size.
    gridY                       INTEGER   NOT NULL,                    -- Y-dimension grid size.
    gridZ                       INTEGER   NOT NULL,                    -- Z-dimension grid size.
    blockX                      INTEGER   NOT NULL,                    -- X-dimension block size.
    blockY                      INTEGER   NOT NULL,                    -- Y-dimension block size.
    blockZ                      INTEGER   NOT NULL,                    -- Z-dimension block size.
    staticSharedMemory          INTEGER   NOT NULL,                    -- Static shared memory allocated for the kernel (B).
    dynamicSharedMemory         INTEGER   NOT NULL,                    -- Dynamic shared memory reserved for the kernel (B).
    localMemoryPerThread        INTEGER   NOT NULL,                    -- Amount of local memory reserved for each thread (B).
    localMemoryTotal            INTEGER   NOT NULL,                    -- Total amount of local memory reserved for the kernel (B).
    gridId                      INTEGER   NOT NULL,                    -- Unique grid ID of the kernel assigned at runtime.
    sharedMemoryExecuted        INTEGER,                               -- Shared memory size set by the driver.
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    sharedMemoryLimitConfig     INTEGER                                -- REFERENCES ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG(id)
);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(5844617581,5844699053,0,1,0,7,167,282323165642752,111,112,110,1,1,44,1056,1,1,256,1,1,0,0,0,155713536,1,32768,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(5848026568,5848029032,0,1,0,7,195,282323165642752,115,112,113,1,1,56,32,1,1,256,1,1,0,0,0,155713536,2,32768,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(7516892797,7517030171,0,1,0,7,230,282323165642752,119,120,118,1,1,20,96192,1,1,128,1,1,0,0,0,250871808,3,32768,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(8169071368,8171259120,0,1,0,7,1473,282323165642752,123,123,123,1,2,168,2,66,1,384,1,1,0,213204,0,250871808,4,233472,NULL,1);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(8737368306,8737749038,0,1,0,7,1754,282323165642752,144,145,124,1,1,18,256512,1,1,128,1,1,4,0,0,250871808,5,32768,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(8738071530,8738832546,0,1,0,7,1776,282323165642752,147,148,125,1,1,63,8191,1,1,1024,1,1,0,4096,0,250871808,6,8192,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(8738833698,8739527738,0,1,0,7,1802,282323165642752,149,150,126,1,1,32,201,2048,1,32,4,1,0,0,0,250871808,7,32768,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(8744888256,8744889888,0,1,0,7,1842,282323165642752,151,120,127,1,1,22,1,1,1,128,1,1,0,0,0,250871808,8,32768,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(8744947583,8744948799,0,1,0,7,1862,282323165642752,151,120,127,1,1,22,1,1,1,128,1,1,0,0,0,250871808,9,32768,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(8744978335,8744988862,0,1,0,7,1868,282323165642752,152,153,131,1,1,32,8,1,1,512,1,1,16,4096,0,250871808,10,65536,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(8751119163,8751121723,0,1,0,7,1920,282323165642752,154,155,133,1,1,38,1,1,1,128,1,1,0,0,0,250871808,12,32768,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(8752129488,8752131248,0,1,0,7,1939,282323165642752,154,155,133,1,1,38,1,1,1,128,1,1,0,0,0,250871808,13,32768,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(8752221999,8752449325,0,1,0,7,1952,282323165642752,157,120,134,1,1,16,256481,1,1,128,1,1,0,0,0,250871808,14,32768,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(8756155204,8756292099,0,1,0,7,1959,282323165642752,158,159,137,1,1,32,1,1,1,32,1,1,0,0,0,250871808,15,32768,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(9027220296,9028121599,0,1,0,7,2130,282323165642752,161,162,138,1,1,54,8191,1,1,1024,1,1,16,4096,0,250871808,16,8192,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(9028122559,9028506490,0,1,0,7,2156,282323165642752,163,164,141,1,1,16,251,2048,1,32,4,1,0,0,0,250871808,17,32768,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(9030640579,9032756108,0,1,0,7,2178,282323165642752,156,156,156,1,2,168,2,66,1,384,1,1,0,213188,0,250871808,18,233472,NULL,1);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(9032815243,9034955316,0,1,0,7,2200,282323165642752,160,160,160,1,1,168,2,66,1,384,1,1,0,188604,0,250871808,19,200704,NULL,1);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    bytes                       INTEGER   NOT NULL,                    -- Number of bytes transferred (B).
    copyKind                    INTEGER   NOT NULL,                    -- REFERENCES ENUM_CUDA_MEMCPY_OPER(id)
    deprecatedSrcId             INTEGER,                               -- Deprecated, use srcDeviceId instead.
    srcKind                     INTEGER,                               -- REFERENCES ENUM_CUDA_MEM_KIND(id)
    dstKind                     INTEGER,                               -- REFERENCES ENUM_CUDA_MEM_KIND(id)
    srcDeviceId                 INTEGER,                               -- Source device ID.
    srcContextId                INTEGER,                               -- Source context ID.
    dstDeviceId                 INTEGER,                               -- Destination device ID.
    dstContextId                INTEGER,                               -- Destination context ID.
    migrationCause              INTEGER,                               -- REFERENCES ENUM_CUDA_UNIF_MEM_MIGRATION(id)
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    virtualAddress              INTEGER                                -- Virtual base address of the page/s being transferred.
);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(7476932404,7498288041,0,1,0,7,213,282323165642752,394002432,1,NULL,0,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(8745862005,8745862901,0,1,0,7,1885,282323165642752,2,1,NULL,0,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(8746253265,8746285104,0,1,0,7,1904,282323165642752,62914560,8,NULL,2,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    value                       INTEGER   NOT NULL,                    -- Value assigned to memory.
    bytes                       INTEGER   NOT NULL,                    -- Number of bytes set (B).
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    memKind                     INTEGER                                -- REFERENCES ENUM_CUDA_MEM_KIND(id)
);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES(8168978473,8168979689,0,1,0,7,1472,282323165642752,0,4,NULL,2);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES(9030581732,9030582820,0,1,0,7,2177,282323165642752,0,4,NULL,2);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES(9032768812,9032769580,0,1,0,7,2199,282323165642752,0,4,NULL,2);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- Correlation ID of the synchronization API to which this result is associated.
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    deprecatedSyncType          INTEGER,                               -- Deprecated, use syncType instead. For older report, REFERENCES ENUM_CUPTI_SYNC_TYPE(id)
    syncType                    INTEGER   NOT NULL,                    -- REFERENCES ENUM_CUPTI_SYNC_TYPE(id)
    eventId                     INTEGER   NOT NULL,                    -- Event ID for which the synchronization API is called.
    eventSyncId                 INTEGER                                -- CUDA Event Sync ID to link the synchronization API to associated event record API.
);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES(7498264040,7498291990,0,1,NULL,7,214,282323165642752,NULL,2,4294967295,4294967295);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES(8745866656,8745873256,0,1,NULL,7,1886,282323165642752,NULL,2,4294967295,4294967295);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES(9033243931,9034958913,0,1,NULL,4294967295,2213,282323165642752,NULL,4,4294967295,4294967295);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    eventClass                  INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_CLASS(id)
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    correlationId               INTEGER,                               -- ID used to identify events that this function call has triggered.
    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Function name
    returnValue                 INTEGER   NOT NULL,                    -- Return value of the function call.
    callchainId                 INTEGER                                -- REFERENCES CUDA_CALLCHAINS(id)
);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(5843435689,5843593277,0,282323165693308,149,108,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(5843668696,5844620076,0,282323165693308,167,114,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(5844748485,5844819244,0,282323165693308,177,108,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(5844840524,5848027201,0,282323165693308,195,114,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(7476505207,7476766864,0,282323165693308,206,108,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(7476809494,7498261270,0,282323165693308,213,116,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(7498262970,7498292180,0,282323165693308,214,117,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(7508497243,7508660192,0,282323165693308,223,108,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(7508690791,7516894156,0,282323165693308,230,114,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8113863434,8114077601,0,282323165693308,241,108,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8126707709,8126803888,0,282323165693308,1376,108,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8126811608,8126814459,0,282323165693308,1385,108,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8126818968,8126890818,0,282323165693308,1394,108,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8168953399,8168978039,0,282323165693308,1472,142,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8168978879,8169072008,1,282323165693308,1473,143,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8736492454,8737298265,0,282323165693308,1751,108,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8737335205,8737371284,1,282323165693308,1754,146,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8737452834,8738024578,0,282323165693308,1773,108,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8738047517,8738073557,1,282323165693308,1776,146,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8738188626,8738206576,1,282323165693308,1802,146,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8738392694,8744891406,0,282323165693308,1842,114,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8744936276,8744948216,0,282323165693308,1862,114,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8744967805,8744980665,1,282323165693308,1868,146,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8745838706,8745863806,0,282323165693308,1885,116,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8745865226,8745873756,0,282323165693308,1886,117,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8746213092,8746256802,0,282323165693308,1904,116,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8749047033,8751120211,0,282323165693308,1920,114,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8752117701,8752129371,0,282323165693308,1939,114,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8752195440,8752221380,0,282323165693308,1952,114,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(8752228249,8756154909,0,282323165693308,1959,114,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(9026454431,9027157924,0,282323165693308,2127,108,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(9027184894,9027222463,1,282323165693308,2130,146,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(9027769957,9027780648,1,282323165693308,2156,146,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(9030569918,9030580488,0,282323165693308,2177,142,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(9030581328,9030640318,1,282323165693308,2178,143,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(9032761085,9032767445,0,282323165693308,2199,142,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(9032767796,9032815055,1,282323165693308,2200,143,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(9033242700,9034959213,0,282323165693308,2213,165,0,NULL);
CREATE TABLE NVTX_EVENTS (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER,                               -- Event end timestamp (ns).
    eventType                   INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_TYPE(id)
    rangeId                     INTEGER,                               -- Correlation ID returned from a nvtxRangeStart call.
    category                    INTEGER,                               -- User-controlled ID that can be used to group events.
    color                       INTEGER,                               -- Encoded ARGB color value.
    text                        TEXT,                                  -- Explicit name/text (non-registered string)
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    endGlobalTid                INTEGER,                               -- Serialized GlobalId.
    textId                      INTEGER,                               -- REFERENCES StringIds(id) -- Registered NVTX domain/string
    domainId                    INTEGER,                               -- User-controlled ID that can be used to group events.
    uint64Value                 INTEGER,                               -- One of possible payload value union members.
    int64Value                  INTEGER,                               -- One of possible payload value union members.
    doubleValue                 REAL,                                  -- One of possible payload value union members.
    uint32Value                 INTEGER,                               -- One of possible payload value union members.
    int32Value                  INTEGER,                               -- One of possible payload value union members.
    floatValue                  REAL,                                  -- One of possible payload value union members.
    jsonTextId                  INTEGER,                               -- One of possible payload value union members.
    jsonText                    TEXT,                                  -- One of possible payload value union members.
    binaryData                  TEXT                                   -- Binary payload. See docs for format.
);
INSERT INTO NVTX_EVENTS VALUES(8171245085,8745005155,59,NULL,NULL,NULL,'FusionExecutorCache::runFusionWithInputs',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8736270206,8745002295,59,NULL,NULL,NULL,'FusionKernelRuntime::runWithInputs',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8736271846,8744999535,59,NULL,NULL,NULL,'FusionKernelRuntime::runSegmentsWithInputs',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8736376695,8737385774,59,NULL,NULL,NULL,'FusionKernelRuntime::runKernelWithInput',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8736377755,8737385254,59,NULL,NULL,NULL,'ExecutorDispatch::run2',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8736378915,8737384544,59,NULL,NULL,NULL,'KernelExecutor::runFusion',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8736466284,8737317975,59,NULL,NULL,NULL,'fusion_executor::allocations::allocateOutputs',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8737328055,8737372215,59,NULL,NULL,NULL,'KernelExecutor::runFusion::execute_kernel',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8737328935,8737371895,59,NULL,NULL,NULL,'ExecutorRunFusion::cuLaunchKernel',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8737388534,8738079007,59,NULL,NULL,NULL,'FusionKernelRuntime::runKernelWithInput',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8737390154,8738078477,59,NULL,NULL,NULL,'ExecutorDispatch::run2',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8737391844,8738077717,59,NULL,NULL,NULL,'KernelExecutor::runFusion',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8737439294,8738038768,59,NULL,NULL,NULL,'fusion_executor::allocations::allocateOutputs',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8738045508,8738074457,59,NULL,NULL,NULL,'KernelExecutor::runFusion::execute_kernel',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8738046177,8738074047,59,NULL,NULL,NULL,'ExecutorRunFusion::cuLaunchKernel',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8738086227,8738210386,59,NULL,NULL,NULL,'FusionKernelRuntime::runKernelWithInput',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8738087777,8738209916,59,NULL,NULL,NULL,'ExecutorDispatch::run2',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8738089137,8738209396,59,NULL,NULL,NULL,'KernelExecutor::runFusion',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8738187316,8738207206,59,NULL,NULL,NULL,'KernelExecutor::runFusion::execute_kernel',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8738187876,8738206856,59,NULL,NULL,NULL,'ExecutorRunFusion::cuLaunchKernel',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8738212516,8744992635,59,NULL,NULL,NULL,'FusionKernelRuntime::runKernelWithInput',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8738213956,8744992105,59,NULL,NULL,NULL,'ExecutorDispatch::run2',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8738214836,8744984145,59,NULL,NULL,NULL,'KernelExecutor::runFusion',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8738325094,8744953616,59,NULL,NULL,NULL,'KernelExecutor::runFusion::intermediates',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8744966045,8744981325,59,NULL,NULL,NULL,'KernelExecutor::runFusion::execute_kernel',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8744966865,8744981045,59,NULL,NULL,NULL,'ExecutorRunFusion::cuLaunchKernel',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(8756761542,9027818557,59,NULL,NULL,NULL,'FusionExecutorCache::runFusionWithInputs',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(9026206824,9027817237,59,NULL,NULL,NULL,'FusionKernelRuntime::runWithInputs',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(9026208474,9027815857,59,NULL,NULL,NULL,'FusionKernelRuntime::runSegmentsWithInputs',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(9026218904,9027227913,59,NULL,NULL,NULL,'FusionKernelRuntime::runKernelWithInput',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(9026221514,9027227353,59,NULL,NULL,NULL,'ExecutorDispatch::run2',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(9026223534,9027226663,59,NULL,NULL,NULL,'KernelExecutor::runFusion',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(9026425131,9027174094,59,NULL,NULL,NULL,'fusion_executor::allocations::allocateOutputs',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(9027182704,9027223293,59,NULL,NULL,NULL,'KernelExecutor::runFusion::execute_kernel',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(9027183414,9027223023,59,NULL,NULL,NULL,'ExecutorRunFusion::cuLaunchKernel',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(9027230873,9027787197,59,NULL,NULL,NULL,'FusionKernelRuntime::runKernelWithInput',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(9027232023,9027786897,59,NULL,NULL,NULL,'ExecutorDispatch::run2',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(9027233433,9027786587,59,NULL,NULL,NULL,'KernelExecutor::runFusion',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(9027769028,9027785167,59,NULL,NULL,NULL,'KernelExecutor::runFusion::execute_kernel',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(9027769508,9027780808,59,NULL,NULL,NULL,'ExecutorRunFusion::cuLaunchKernel',282323165693308,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
CREATE TABLE TARGET_INFO_GPU (
    vmId                        INTEGER   NOT NULL,                    -- Serialized GlobalId.
    id                          INTEGER   NOT NULL,                    -- Device ID.
    name                        TEXT,                                  -- Device name.
    busLocation                 TEXT,                                  -- PCI bus location.
    isDiscrete                  INTEGER,                               -- True if discrete, false if integrated.
    l2CacheSize                 INTEGER,                               -- Size of L2 cache (B).
    totalMemory                 INTEGER,                               -- Total amount of memory on the device (B).
    memoryBandwidth             INTEGER,                               -- Amount of memory transferred (B).
    clockRate                   INTEGER,                               -- Clock frequency (Hz).
    smCount                     INTEGER,                               -- Number of multiprocessors on the device.
    pwGpuId                     INTEGER,                               -- PerfWorks GPU ID.
    uuid                        TEXT,                                  -- Device UUID.
    luid                        INTEGER,                               -- Device LUID.
    chipName                    TEXT,                                  -- Chip name.
    cuDevice                    INTEGER,                               -- CUDA device ID.
    ctxswDevPath                TEXT,                                  -- GPU context switch device node path.
    ctrlDevPath                 TEXT,                                  -- GPU control device node path.
    revision                    INTEGER,                               -- Revision number.
    nodeMask                    INTEGER,                               -- Device node mask.
    constantMemory              INTEGER,                               -- Memory available on device for __constant__ variables (B).
    maxIPC                      INTEGER,                               -- Maximum instructions per count.
    maxRegistersPerBlock        INTEGER,                               -- Maximum number of 32-bit registers available per block.
    maxShmemPerBlock            INTEGER,                               -- Maximum optin shared memory per block.
    maxShmemPerBlockOptin       INTEGER,                               -- Maximum optin shared memory per block.
    maxShmemPerSm               INTEGER,                               -- Maximum shared memory available per multiprocessor (B).
    maxRegistersPerSm           INTEGER,                               -- Maximum number of 32-bit registers available per multiprocessor.
    threadsPerWarp              INTEGER,                               -- Warp size in threads.
    asyncEngines                INTEGER,                               -- Number of asynchronous engines.
    maxWarpsPerSm               INTEGER,                               -- Maximum number of warps per multiprocessor.
    maxBlocksPerSm              INTEGER,                               -- Maximum number of blocks per multiprocessor.
    maxThreadsPerBlock          INTEGER,                               -- Maximum number of threads per block.
    maxBlockDimX                INTEGER,                               -- Maximum X-dimension of a block.
    maxBlockDimY                INTEGER,                               -- Maximum Y-dimension of a block.
    maxBlockDimZ                INTEGER,                               -- Maximum Z-dimension of a block.
    maxGridDimX                 INTEGER,                               -- Maximum X-dimension of a grid.
    maxGridDimY                 INTEGER,                               -- Maximum Y-dimension of a grid.
    maxGridDimZ                 INTEGER,                               -- Maximum Z-dimension of a grid.
    computeMajor                INTEGER,                               -- Major compute capability version number.
    computeMinor                INTEGER,                               -- Minor compute capability version number.
    smMajor                     INTEGER,                               -- Major multiprocessor version number.
    smMinor                     INTEGER                                -- Minor multiprocessor version number.
);
INSERT INTO TARGET_INFO_GPU VALUES(281474976710656,0,'NVIDIA H200','0000:45:00.0',1,62914560,150121545728,4916736000000,1980000000,132,0,'1825e7cc-6d1b-a3ac-d9bf-66534f906620',0,'GH100',0,'','',161,0,65536,0,65536,49152,232448,233472,65536,32,3,64,32,1024,1024,1024,64,2147483647,65535,65535,9,0,9,0);
CREATE TABLE META_DATA_EXPORT (
    -- information about nsys export process

    name                        TEXT      NOT NULL,                    -- Name of meta-data record
    value                       TEXT                                   -- Value of meta-data record
);
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_PRODUCT_NAME','NVIDIA Nsight Systems');
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_PRODUCT_VERSION','2025.1.1.110');
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_PRODUCT_DATE','2025.1');
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION','3.17.1');
CREATE TABLE ENUM_NSYS_EVENT_TYPE (
    -- Nsys event type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(32,'NvtxEvents','NvtxEvents');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(33,'NvtxCategory','NvtxCategory');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(34,'NvtxMark','NvtxMark');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(35,'NvtxPushRange','NvtxPushRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(36,'NvtxPopRange','NvtxPopRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(37,'NvtxStartRange','NvtxStartRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(38,'NvtxEndRange','NvtxEndRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(39,'NvtxThread','NvtxThread');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(59,'NvtxPushPopRange','NvtxPushPopRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(60,'NvtxStartEndRange','NvtxStartEndRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(64,'NvtxtCategory','NvtxtCategory');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(65,'NvtxtMark','NvtxtMark');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(66,'NvtxtPushRange','NvtxtPushRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(67,'NvtxtPopRange','NvtxtPopRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(68,'NvtxtStartRange','NvtxtStartRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(69,'NvtxtEndRange','NvtxtEndRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(70,'NvtxtPushPopRange','NvtxtPushPopRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(71,'NvtxtStartEndRange','NvtxtStartEndRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(72,'NvtxtMetaThread','NvtxtMetaThread');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(73,'NvtxtMetaProcess','NvtxtMetaProcess');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(74,'NvtxtMetaFileDisplay','NvtxtMetaFileDisplay');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(75,'NvtxDomainCreate','NvtxDomainCreate');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(76,'NvtxDomainDestroy','NvtxDomainDestroy');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(97,'NvtxNameCudaDevice','NvtxNameCudaDevice');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(98,'NvtxNameCudaContext','NvtxNameCudaContext');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(99,'NvtxNameCudaStream','NvtxNameCudaStream');
COMMIT;
