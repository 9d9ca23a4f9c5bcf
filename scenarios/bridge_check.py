#!/usr/bin/env python3
"""bridge_check.py: `collsim plan` against NVIDIA's Megatron-Bridge performance summary
(tests/data/plans/megatron-bridge-25.11.json: NeMo 25.11, DGX H100 / B200 / GB200 / GB300,
dense and MoE, BF16 / FP8 / MXFP8). Held out: nothing in collsim was chosen with these rows.
Each row is rebuilt from the table's columns (GPUs, precision, batch sizes, sequence, FSDP,
TP, PP, CP, VP, EP); what the table does not state is an assumption printed under the table.
usage: bridge_check.py COLLSIM DATA.json   (prints markdown)"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

MODELS = {"LLAMA3_8B": "llama3-8b", "LLAMA3_70B": "llama3-70b",
          "LLAMA3.1_405B": "llama3.1-405b", "DeepSeekV3": "deepseek-v3",
          "GPT_OSS_120B": "gpt-oss-120b", "Qwen3_30B_a3B": "qwen3-30b-a3b",
          "Qwen3_235B_a22B": "qwen3-235b-a22b"}
# system -> (gpu preset, topology preset or a file beside the data, GPUs a node for --nodes
# or None: the cluster's first GPUs). DGX GB200/GB300: racks of 64 GPUs (16 of 18 trays), so
# that power-of-two EP groups stay in one NVLink domain (the files say why).
SYSTEMS = {"DGX-H100": ("h100-sxm", "dgx-h100-x128", 8),
           "DGX-B200": ("b200", "dgx-b200-x128", 8),
           "DGX-GB200": ("gb200", "gb200-nvl72-64-x4.json", None),
           "DGX-GB300": ("gb300", "gb300-nvl72-64-x4.json", None)}
DTYPE = {"BF16": ("bf16", None), "FP8-CS": ("fp8", "tensorwise"), "FP8-MX": ("fp8", "mxfp8")}
MOE = {"DeepSeekV3", "GPT_OSS_120B", "Qwen3_30B_a3B", "Qwen3_235B_a22B"}


def deepseek_plan(r, layouts):
    """DeepSeek-V3's 61 layers need Megatron-Bridge's pipeline layout: a plan file with the
    model inline (MTP as the row trains it) and the layout; None when Bridge has none."""
    vp = r["vp"] or 1
    lay = layouts.get(str(r["pp"] * vp))
    if not lay:
        return None
    model = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "models",
                                        "deepseek-v3.json")))
    model["mtp_layers"] = 1 if r["mtp"] else 0
    plan = {"model": model, "train": {"global_batch": r["gbs"]},
            "parallel": {"pipeline_layout": lay.replace("{m}", "m" if r["mtp"] else "")}}
    f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump(plan, f)
    f.close()
    return f.name


def command(collsim, r, here, plan=None):
    gpu, topo, per_node = SYSTEMS[r["system"]]
    if topo.endswith(".json"):
        topo = os.path.join(here, topo)
    dtype, recipe = DTYPE[r["precision"]]
    dp = r["gpus"] // (r["tp"] * r["pp"] * r["cp"])
    vp = r["vp"] or 1
    cmd = [collsim, "plan"] + ([plan] if plan else ["--model", MODELS[r["model"]]]) + [
           "--gpu", gpu, "--topo", topo,
           "--tp", str(r["tp"]), "--pp", str(r["pp"]), "--cp", str(r["cp"]),
           "--ep", str(r["ep"]), "--dp", str(dp), "--mbs", str(r["mbs"]),
           "--gbs", str(r["gbs"]), "--seq-length", str(r["seq"]), "--dtype", dtype,
           "--zero", "3" if r["fsdp"] else "1", "--format", "json"]
    if per_node:
        cmd += ["--nodes", str(max(1, r["gpus"] // per_node))]
    if r["tp"] > 1:
        cmd += ["--sp"]
        if r["model"] in MOE:   # Megatron-Bridge's MoE recipes: expert_tensor_parallel_size 1
            cmd += ["--etp", "1"]
    if vp > 1:
        cmd += ["--schedule", "interleaved", "--vp", str(vp)]
    meg = []
    if recipe:
        meg += ["--fp8-recipe", recipe]
    layers = {"llama3.1-405b": 126, "qwen3-235b-a22b": 94, "deepseek-v3": 61}.get(
        MODELS[r["model"]])
    if layers and layers % (r["pp"] * vp) and not plan:
        # Megatron-Bridge's recipes count the embedding and the loss as layers when the
        # layers do not divide (account_for_embedding/loss_in_pipeline_split)
        meg += ["--account-for-embedding-in-pipeline-split",
                "--account-for-loss-in-pipeline-split"]
    rec = r.get("from_recipe", {})
    n_rec = rec.get("recompute_num_layers")
    if n_rec:
        cmd += ["--recompute", "full", "--recompute-fraction",
                "%.6g" % (n_rec / 32.0)]
    else:
        cmd += ["--recompute", "none"]
    if meg:
        cmd += ["--megatron", " ".join(meg)]
    return cmd


def main():
    collsim, path = sys.argv[1], sys.argv[2]
    data = json.load(open(path))
    src = data["source"]
    print("NVIDIA's performance summary of Megatron-Bridge (%s, %s @ %s, \"%s\"): tokens/s per "
          "GPU as printed, against `collsim plan` of the row's layout. Held out: nothing was "
          "fitted to these rows." % (src["repository"], src["path"], src["commit"][:12],
                                     src["section"]))
    print()
    print("| system | model | GPUs | precision | layout (tp pp cp vp ep, mbs) | measured | "
          "collsim | error | fits |")
    print("|---|---|---|---|---|---|---|---|---|")
    errs, refused = {"dense": [], "moe": []}, []
    here = os.path.dirname(os.path.abspath(path))
    layouts = src.get("deepseek_v3_layouts", {})
    for r in data["rows"]:
        plan = deepseek_plan(r, layouts) if r["model"] == "DeepSeekV3" else None
        if r["model"] == "DeepSeekV3" and not plan:
            refused.append((r, "Megatron-Bridge's layout map has no DeepSeek-V3 layout for %d "
                            "virtual stages (not rebuilt)" % (r["pp"] * (r["vp"] or 1))))
            print("| %s | %s | %d | %s | %d %d %d %s %d, %d | %d | not rebuilt | - | - |" % (
                r["system"], r["model"], r["gpus"], r["precision"], r["tp"], r["pp"], r["cp"],
                r["vp"] or "-", r["ep"], r["mbs"], r["tokens"]))
            continue
        cmd = command(collsim, r, here, plan)
        p = subprocess.run(cmd, capture_output=True, text=True)
        if plan:
            os.unlink(plan)
        lay = "%d %d %d %s %d, %d" % (r["tp"], r["pp"], r["cp"], r["vp"] or "-", r["ep"],
                                     r["mbs"])
        if p.returncode:
            msg = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "exit %d" % (
                p.returncode)
            refused.append((r, msg))
            print("| %s | %s | %d | %s | %s | %d | refused | - | - |" % (
                r["system"], r["model"], r["gpus"], r["precision"], lay, r["tokens"]))
            continue
        d = json.loads(p.stdout)
        tok = d["tokens_per_s"] / d["gpus"]
        e = 100.0 * (tok / r["tokens"] - 1)
        errs["moe" if r["model"] in MOE else "dense"].append(e)
        print("| %s | %s | %d | %s | %s | %d | %.0f | %+.1f%% | %s |" % (
            r["system"], r["model"], r["gpus"], r["precision"], lay, r["tokens"], tok, e,
            "yes" if d["fits"] else "no"))
    print()
    for k in ("dense", "moe"):
        v = errs[k]
        if v:
            print("- %s: %d rows, median |error| %.1f%%, mean error %+.1f%%, largest |error| "
                  "%.1f%%" % (k, len(v), statistics.median(abs(x) for x in v),
                              statistics.mean(v), max(abs(x) for x in v)))
    for r, msg in refused:
        print("- %s: %s %s on %d GPUs: %s" % ("not rebuilt" if "not rebuilt" in msg
                                               else "refused", r["system"], r["model"],
                                               r["gpus"], msg.replace(" (not rebuilt)", "")))
    for n in data.get("not_rebuilt", []):
        print("- not rebuilt: %s: %s" % (n["row"], n["why"]))
    print("- assumed, as the table does not state it: no recomputation (but the DGX-H100 "
          "LLAMA3_8B row: its recipe's recompute_num_layers 5 read as 5 of 32 layers fully "
          "recomputed), flash attention, sequence parallelism with TP, the distributed "
          "optimizer (ZeRO-1) where FSDP is 0 and ZeRO-3 where it is 1, expert tensor parallelism 1 "
          "with TP (the Qwen3 recipes' expert_tensor_parallel_size), collsim's default MoE "
          "dispatcher (alltoall), a balanced router (the page: \"we force-balance the token "
          "distribution\"), no CUDA graphs, and, where the layers do not divide over the "
          "virtual stages, the embedding and the loss counted as layers (Megatron's "
          "account_for_embedding/loss_in_pipeline_split)")
    print("- DeepSeek-V3: Megatron-Bridge's pipeline layout for the row's virtual stages (%s), "
          "MTP as the table says (w/ on DGX-B200, w/o on DGX-GB200/GB300)"
          % layouts.get("from", "not given"))
    print("- the recipes of the DGX-GB200/GB300 LLAMA3_70B rows offload 40 / 20 of the 80 "
          "layers' activations to the Grace CPUs (cpu_offloading_num_layers); collsim's "
          "offload is all layers or none and a rack preset has no host link (it would assume "
          "25 GB/s PCIe), so these rows run without offload and do not fit")


if __name__ == "__main__":
    main()
