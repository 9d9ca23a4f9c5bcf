#!/usr/bin/env python3
"""memory_check.py: peak memory per GPU of collsim plan against the torchtitan H100 rows
(source_id TT-H100 of ../shared/data/plans/points.json, peak memory in GiB on every row).
A check, not a fit: nothing is tuned to these rows. Rows with pp > 1 (FSDP + PP, which the
plan refuses with ZeRO-3) are skipped. Usage: memory_check.py COLLSIM POINTS.json"""
import json, statistics, subprocess, sys

def plan_of(p):
    seq = p["seq_len"] if isinstance(p["seq_len"], int) else 8192  # train_configs: 8192
    model = {"Llama 3.1 8B": "llama3-8b", "Llama 3.1 70B": "llama3-70b"}[p["model"]]
    dtype = "fp8" if p["precision"].startswith("FP8") else "bf16"
    mb = p["micro_batch"]
    gb = p["global_batch"] if isinstance(p["global_batch"], int) else mb * p["dp"]
    # torchtitan's selective AC (op: every other matmul's output saved, the rest
    # recomputed) read as full recompute of half the layers, as plan_accuracy.py does
    rc, frac = ("full", []) if p["recompute"].startswith("full") else \
        ("full", ["--recompute-fraction", "0.5"])
    nodes = ["--topo", "dgx-h100"] if p["gpu_count"] <= 8 else \
        ["--topo", "dgx-h100-x16", "--nodes", str(p["gpu_count"] // 8)]
    return ["--model", model, "--gpu", "h100-sxm"] + nodes + ["--tp", str(p["tp"]),
            "--pp", "1", "--cp", str(p["cp"]), "--dp", str(p["dp"]), "--zero", "3",
            "--mbs", str(mb), "--gbs", str(gb), "--recompute", rc, "--dtype", dtype,
            "--seq-length", str(seq), "--loss", "pytorch"] + frac + \
        (["--sp"] if p["tp"] > 1 else [])

def main():
    exe, points = sys.argv[1], sys.argv[2]
    errs = []
    for p in json.load(open(points)):
        if p.get("source_id") != "TT-H100" or p["pp"] != 1:
            continue
        meas = float(p["peak_memory"].split()[0]) * 2**30
        out = subprocess.run([exe, "plan", "--format", "json"] + plan_of(p),
                             capture_output=True, text=True)
        if out.returncode != 0:
            print("%s: %s" % (p["id"], out.stderr.strip()))
            continue
        d = json.loads(out.stdout)
        # torchtitan prints the caching allocator's max reserved: no CUDA context, no NCCL
        det = d.get("memory_detail_bytes", {})
        got = d["memory_bytes"]["total"] - det.get("cuda_context", 0) - det.get("nccl", 0)
        e = 100 * (got - meas) / meas
        errs.append(abs(e))
        print("%s  measured %6.1f GiB  plan %6.1f GiB  error %+6.1f%%" %
              (p["id"], meas / 2**30, got / 2**30, e))
    print("rows %d  median |error| %.1f%%  max %.1f%%" %
          (len(errs), statistics.median(errs), max(errs)))

main()
