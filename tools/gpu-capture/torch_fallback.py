"""Only when Megatron-LM cannot run: a plain PyTorch GPT block stack trained a
few steps under torch.profiler, so a Kineto trace is still captured.
usage: torch_fallback.py OUT_DIR"""
import os
import sys
import time

import torch
import torch.nn as nn

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
layer = nn.TransformerEncoderLayer(2048, 16, 8192, dropout=0.0, batch_first=True,
                                   norm_first=True, device="cuda", dtype=torch.bfloat16)
model = nn.TransformerEncoder(layer, 8).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(4, 2048, 2048, device="cuda", dtype=torch.bfloat16)
mask = nn.Transformer.generate_square_subsequent_mask(2048, device="cuda", dtype=torch.bfloat16)
times = []
sched = torch.profiler.schedule(wait=3, warmup=1, active=3)
with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA],
        schedule=sched,
        on_trace_ready=lambda p: p.export_chrome_trace(os.path.join(out, "torch_fallback.pt.trace.json"))) as prof:
    for _ in range(8):
        t0 = time.perf_counter()
        model(x, mask=mask, is_causal=True).float().pow(2).mean().backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        prof.step()
print("step_seconds", times, "max_allocated_MB", torch.cuda.max_memory_allocated() / 2**20)
