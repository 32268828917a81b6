-- BUILT by make_source_fixtures.py (see README.md): not a real export.
BEGIN TRANSACTION;
CREATE TABLE StringIds (
    -- Consolidation of repetitive string values.

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- ID reference value.
    value                       TEXT      NOT NULL                     -- String value.
);;
INSERT INTO StringIds VALUES(1,'cudaMemcpyAsync_v3020');
INSERT INTO StringIds VALUES(2,'cudaLaunchKernel_v7000');
INSERT INTO StringIds VALUES(3,'void at::native::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, unsigned int, long)');
INSERT INTO StringIds VALUES(4,'at::native::indexSelectLargeIndex');
INSERT INTO StringIds VALUES(5,'void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, c10::BFloat16 const*, float, int, int)');
INSERT INTO StringIds VALUES(6,'vllm::rms_norm_kernel');
INSERT INTO StringIds VALUES(7,'nvjet_tst_128x64_64x6_1x2_h_bz_coopA_NNT');
INSERT INTO StringIds VALUES(8,'void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t> >(Flash_fwd_params)');
INSERT INTO StringIds VALUES(9,'flash::flash_fwd_kernel');
INSERT INTO StringIds VALUES(10,'nvjet_tst_64x32_64x16_1x4_h_bz_coopB_NNT');
INSERT INTO StringIds VALUES(11,'void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)');
INSERT INTO StringIds VALUES(12,'at::native::vectorized_elementwise_kernel');
INSERT INTO StringIds VALUES(13,'nvjet_tst_256x8_64x8_1x1_h_bz_NTN');
INSERT INTO StringIds VALUES(14,'cudaStreamSynchronize_v3020');
INSERT INTO StringIds VALUES(15,'cudaStreamBeginCapture_v10000');
INSERT INTO StringIds VALUES(16,'cudaLaunchKernel');
INSERT INTO StringIds VALUES(17,'cudaStreamEndCapture_v10000');
INSERT INTO StringIds VALUES(18,'cudaGraphInstantiate_v12000');
INSERT INTO StringIds VALUES(19,'cudaGraphInstantiate');
INSERT INTO StringIds VALUES(20,'cudaGraphLaunch_v10000');
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
);;
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000050000,1000065000,0,1,0,7,102,281546145660928,3,4,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,1,NULL,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000066000,1000086000,0,1,0,7,103,281546145660928,5,6,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,2,NULL,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000087000,1000137000,0,1,0,7,104,281546145660928,7,7,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,3,NULL,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000138000,1000208000,0,1,0,7,105,281546145660928,8,9,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,4,NULL,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000209000,1000249000,0,1,0,7,106,281546145660928,10,10,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,5,NULL,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000250000,1000260000,0,1,0,7,107,281546145660928,11,12,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,6,NULL,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000261000,1000281000,0,1,0,7,108,281546145660928,5,6,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,7,NULL,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000282000,1000332000,0,1,0,7,109,281546145660928,7,7,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,8,NULL,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000333000,1000403000,0,1,0,7,110,281546145660928,8,9,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,9,NULL,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000404000,1000444000,0,1,0,7,111,281546145660928,10,10,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,10,NULL,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000445000,1000455000,0,1,0,7,112,281546145660928,11,12,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,11,NULL,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000456000,1000496000,0,1,0,7,113,281546145660928,13,13,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,12,NULL,NULL,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000628000,1000629500,0,1,0,7,130,281546145660928,3,4,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,13,NULL,200,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000630500,1000632500,0,1,0,7,130,281546145660928,5,6,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,14,NULL,201,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000633500,1000638500,0,1,0,7,130,281546145660928,7,7,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,15,NULL,202,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000639500,1000646500,0,1,0,7,130,281546145660928,8,9,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,16,NULL,203,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000647500,1000651500,0,1,0,7,130,281546145660928,10,10,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,17,NULL,204,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000652500,1000653500,0,1,0,7,130,281546145660928,11,12,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,18,NULL,205,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000654500,1000656500,0,1,0,7,130,281546145660928,5,6,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,19,NULL,206,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000657500,1000662500,0,1,0,7,130,281546145660928,7,7,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,20,NULL,207,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000663500,1000670500,0,1,0,7,130,281546145660928,8,9,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,21,NULL,208,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000671500,1000675500,0,1,0,7,130,281546145660928,10,10,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,22,NULL,209,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000676500,1000677500,0,1,0,7,130,281546145660928,11,12,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,23,NULL,210,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000678500,1000682500,0,1,0,7,130,281546145660928,13,13,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,24,NULL,211,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000696500,1000698000,0,1,0,7,132,281546145660928,3,4,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,25,NULL,200,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000699000,1000701000,0,1,0,7,132,281546145660928,5,6,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,26,NULL,201,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000702000,1000707000,0,1,0,7,132,281546145660928,7,7,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,27,NULL,202,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000708000,1000715000,0,1,0,7,132,281546145660928,8,9,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,28,NULL,203,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000716000,1000720000,0,1,0,7,132,281546145660928,10,10,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,29,NULL,204,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000721000,1000722000,0,1,0,7,132,281546145660928,11,12,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,30,NULL,205,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000723000,1000725000,0,1,0,7,132,281546145660928,5,6,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,31,NULL,206,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000726000,1000731000,0,1,0,7,132,281546145660928,7,7,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,32,NULL,207,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000732000,1000739000,0,1,0,7,132,281546145660928,8,9,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,33,NULL,208,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000740000,1000744000,0,1,0,7,132,281546145660928,10,10,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,34,NULL,209,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000745000,1000746000,0,1,0,7,132,281546145660928,11,12,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,35,NULL,210,0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000747000,1000751000,0,1,0,7,132,281546145660928,13,13,NULL,1,1,64,132,1,1,256,1,1,0,4096,0,0,36,NULL,211,0);
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
);;
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(1000009000,1000049000,0,1,0,7,101,281546145660928,4194304,1,NULL,0,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    eventClass                  INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_CLASS(id)
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    correlationId               INTEGER,                               -- ID used to identify events that this function call has triggered.
    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Function name
    returnValue                 INTEGER   NOT NULL,                    -- Return value of the function call.
    callchainId                 INTEGER                                -- REFERENCES CUDA_CALLCHAINS(id)
);;
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000005000,1000013000,1,281546145665170,101,1,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000018000,1000024000,1,281546145665170,102,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000030000,1000036000,1,281546145665170,103,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000041000,1000047000,1,281546145665170,104,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000052000,1000058000,1,281546145665170,105,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000063000,1000069000,1,281546145665170,106,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000074000,1000080000,1,281546145665170,107,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000087000,1000093000,1,281546145665170,108,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000098000,1000104000,1,281546145665170,109,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000109000,1000115000,1,281546145665170,110,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000120000,1000126000,1,281546145665170,111,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000131000,1000137000,1,281546145665170,112,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000143000,1000149000,1,281546145665170,113,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000153000,1000499000,1,281546145665170,114,14,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000501000,1000505000,1,281546145665170,115,15,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000505000,1000510000,1,281546145665170,116,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000510000,1000515000,1,281546145665170,117,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000515000,1000520000,1,281546145665170,118,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000520000,1000525000,1,281546145665170,119,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000525000,1000530000,1,281546145665170,120,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000530000,1000535000,1,281546145665170,121,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000535000,1000540000,1,281546145665170,122,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000540000,1000545000,1,281546145665170,123,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000545000,1000550000,1,281546145665170,124,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000550000,1000555000,1,281546145665170,125,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000555000,1000560000,1,281546145665170,126,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000560000,1000565000,1,281546145665170,127,2,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000565000,1000569000,1,281546145665170,128,17,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000569000,1000619000,1,281546145665170,129,18,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000624000,1000633000,1,281546145665170,130,20,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000633000,1000685500,1,281546145665170,131,14,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000692500,1000701500,1,281546145665170,132,20,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000701500,1000754000,1,281546145665170,133,14,0,NULL);
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
);;
INSERT INTO NVTX_EVENTS VALUES(1000015000,1000026000,59,NULL,NULL,NULL,'aten::embedding, seq = 0, op_id = 1, sizes = [[64], [32000, 256]]',281546145665170,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1000027000,1000038000,59,NULL,NULL,NULL,'aten::rms_norm, seq = 1, op_id = 2, sizes = [[64, 256], [256]]',281546145665170,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1000038000,1000049000,59,NULL,NULL,NULL,'aten::linear, seq = 2, op_id = 3, sizes = [[64, 256], [256, 256]]',281546145665170,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1000049000,1000060000,59,NULL,NULL,NULL,'aten::scaled_dot_product_attention, seq = 3, op_id = 4, sizes = [[1, 4, 64, 64], [1, 4, 64, 64], [1, 4, 64, 64]]',281546145665170,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1000060000,1000071000,59,NULL,NULL,NULL,'aten::linear, seq = 4, op_id = 5, sizes = [[64, 256], [256, 256]]',281546145665170,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1000071000,1000082000,59,NULL,NULL,NULL,'aten::add, seq = 5, op_id = 6, sizes = [[64, 256], [64, 256]]',281546145665170,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1000026000,1000083000,59,NULL,NULL,NULL,'nn.Module: LlamaDecoderLayer_0',281546145665170,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1000084000,1000095000,59,NULL,NULL,NULL,'aten::rms_norm, seq = 6, op_id = 7, sizes = [[64, 256], [256]]',281546145665170,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1000095000,1000106000,59,NULL,NULL,NULL,'aten::linear, seq = 7, op_id = 8, sizes = [[64, 256], [256, 256]]',281546145665170,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1000106000,1000117000,59,NULL,NULL,NULL,'aten::scaled_dot_product_attention, seq = 8, op_id = 9, sizes = [[1, 4, 64, 64], [1, 4, 64, 64], [1, 4, 64, 64]]',281546145665170,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1000117000,1000128000,59,NULL,NULL,NULL,'aten::linear, seq = 9, op_id = 10, sizes = [[64, 256], [256, 256]]',281546145665170,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1000128000,1000139000,59,NULL,NULL,NULL,'aten::add, seq = 10, op_id = 11, sizes = [[64, 256], [64, 256]]',281546145665170,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1000083000,1000140000,59,NULL,NULL,NULL,'nn.Module: LlamaDecoderLayer_1',281546145665170,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1000140000,1000151000,59,NULL,NULL,NULL,'aten::linear, seq = 11, op_id = 12, sizes = [[64, 256], [256, 256]]',281546145665170,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1000013000,1000153000,59,NULL,NULL,NULL,'nn.Module: LlamaForCausalLM_0',281546145665170,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1000000000,1000501000,59,NULL,NULL,NULL,'ProfilerStep#0',281546145665170,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1000619000,1000687500,59,NULL,NULL,NULL,'ProfilerStep#1',281546145665170,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO NVTX_EVENTS VALUES(1000687500,1000756000,59,NULL,NULL,NULL,'ProfilerStep#2',281546145665170,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
CREATE TABLE CUDA_GRAPH_NODE_EVENTS (
    start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER,
    nameId INTEGER NOT NULL, graphNodeId INTEGER NOT NULL, originalGraphNodeId INTEGER);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000505000,1000510000,1,281546145665170,16,100,NULL);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000510000,1000515000,1,281546145665170,16,101,NULL);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000515000,1000520000,1,281546145665170,16,102,NULL);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000520000,1000525000,1,281546145665170,16,103,NULL);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000525000,1000530000,1,281546145665170,16,104,NULL);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000530000,1000535000,1,281546145665170,16,105,NULL);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000535000,1000540000,1,281546145665170,16,106,NULL);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000540000,1000545000,1,281546145665170,16,107,NULL);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000545000,1000550000,1,281546145665170,16,108,NULL);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000550000,1000555000,1,281546145665170,16,109,NULL);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000555000,1000560000,1,281546145665170,16,110,NULL);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000560000,1000565000,1,281546145665170,16,111,NULL);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000569000,1000619000,1,281546145665170,19,200,100);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000569000,1000619000,1,281546145665170,19,201,101);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000569000,1000619000,1,281546145665170,19,202,102);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000569000,1000619000,1,281546145665170,19,203,103);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000569000,1000619000,1,281546145665170,19,204,104);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000569000,1000619000,1,281546145665170,19,205,105);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000569000,1000619000,1,281546145665170,19,206,106);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000569000,1000619000,1,281546145665170,19,207,107);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000569000,1000619000,1,281546145665170,19,208,108);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000569000,1000619000,1,281546145665170,19,209,109);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000569000,1000619000,1,281546145665170,19,210,110);
INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES(1000569000,1000619000,1,281546145665170,19,211,111);
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
);;
INSERT INTO TARGET_INFO_GPU VALUES(281474976710656,0,'NVIDIA H200','0000:45:00.0',1,62914560,150121545728,NULL,1980000000,132,NULL,NULL,NULL,'GH100',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,9,0,NULL,NULL);
CREATE TABLE META_DATA_EXPORT (
    -- information about nsys export process

    name                        TEXT      NOT NULL,                    -- Name of meta-data record
    value                       TEXT                                   -- Value of meta-data record
);;
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_PRODUCT_NAME','NVIDIA Nsight Systems');
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_PRODUCT_VERSION','2025.1.1.110');
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION','3.17.3');
CREATE TABLE ENUM_NSYS_EVENT_TYPE (
    -- Nsys event type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);;
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(59,'NvtxPushPopRange','NvtxPushPopRange');
COMMIT;
