#!/bin/sh
# accuracy.sh: `collsim plan` against published training runs. Prints the ACCURACY.md
# plan section: Megatron SC'21 Table 1 (weak scaling, GPT 1.7B -> 1T on DGX A100 nodes:
# every row's achieved TFLOP/s per GPU, hardware FLOPs with full recompute, the paper's eq. 3
# count), Megatron-Core on H100 (the README's MFU), and the development set of
# tests/data/plans/points.json (scenarios/plan_accuracy.py), and NVIDIA's Megatron-Bridge
# performance summary (scenarios/bridge_check.py).
# usage: scenarios/accuracy.sh [COLLSIM]   (default build/collsim)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
collsim=${1:-$here/../build/collsim}
topo=$here/../tests/data/ok/plan-a100-cluster.json
# model tp pp gpus batch paper_tflops mbs vp
rows='gpt-1.7b 1 1 32 512 137 4 1
gpt-3.6b 2 1 64 512 138 4 1
gpt-7.5b 4 1 128 512 142 4 1
gpt-18b 8 1 256 1024 135 2 1
gpt-39b 8 2 512 1536 138 2 2
gpt-76b 8 4 1024 1792 140 2 3
gpt-145b 8 8 1536 2304 148 2 2
gpt-310b 8 16 1920 2160 155 1 2
gpt-530b 8 35 2520 2520 163 1 3
gpt-1t 8 64 3072 3072 163 1 2'
start=$(date +%s)
errs=$(mktemp)
python3 - "$here/gpus/a100-80gb.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
a = g["attention"][0]
print("GPU a100-80gb: %g TFLOP/s bf16 peak; GEMMs at most %g TFLOP/s (measured: mamf-finder), tiles %s on %d SMs;"
      " attention %s %g / %g TFLOP/s forward / backward (FlashAttention-2 paper); %g GB/s HBM at %g;"
      " math held at %s of those rates (scenarios/gpus/a100-80gb.json, docs/plans.md \"Compute\")."
      % (g["peak_tflops"]["bf16"], g["matmul_tflops"]["bf16"], "x".join(map(str, g["gemm"]["tile"])),
         g["gemm"]["sm_count"], a["kernel"], a["fwd_tflops"], a["bwd_tflops"], g["hbm_GBps"],
         g["mem_eff"], g.get("sustained", {}).get("clock", "0.9 (assumed)")))
PY
echo "Topology tests/data/ok/plan-a100-cluster.json (384 DGX A100, rail-optimised HDR, NCCL mode ring/tree,"
echo "one channel). Every row: bf16, Adam, full recomputation, sequence parallelism, interleaved 1F1B"
echo "where vp > 1, no flash attention. Micro batch and vp are assumptions (Table 1 does not give them)."
echo
echo "| model | TP | PP | DP | GPUs | batch | micro batch | vp | paper TFLOP/s | collsim TFLOP/s | error | step (s) | bubble | exposed comm |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
echo "$rows" | while read -r model tp pp gpus batch paper mbs vp; do
    dp=$((gpus / (tp * pp)))
    "$collsim" plan --model "$model" --gpu a100-80gb --topo "$topo" --tp "$tp" --pp "$pp" \
        --dp "$dp" --gbs "$batch" --mbs "$mbs" --vp "$vp" --recompute full --sp \
        --flash-attention off --format json | python3 -c "
import json, sys
r = json.load(sys.stdin)
b = r['breakdown_s']
got = r['hw_tflops_per_gpu']
comm = sum(b[k] for k in ('tp_exposed', 'pp_exposed', 'dp_exposed'))
open('$errs', 'a').write('%s %.6f\\n' % ('$model', 100 * (got - $paper) / $paper))
print('| $model | $tp | $pp | $dp | $gpus | $batch | $mbs | $vp | $paper | %.1f | %+.1f%% | %.2f | %.1f%% | %.1f%% |' % (
    got, 100 * (got - $paper) / $paper, r['step_time_s'],
    100 * b['pipeline_bubble'] / r['step_time_s'], 100 * comm / r['step_time_s']))"
done
echo
python3 - "$errs" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
e = [float(x[1]) for x in rows]
worst = max(rows, key=lambda x: abs(float(x[1])))
print("Rows within 10%%: %d of %d; largest error %+.1f%% (%s); mean absolute error %.1f%%."
      % (sum(abs(x) <= 10 for x in e), len(e), float(worst[1]), worst[0], sum(map(abs, e)) / len(e)))
PY

# Part 2: Megatron-LM README (2024-07, Megatron-Core r0.8.0) on H100, not used to calibrate.
# size heads hidden layers tp pp gpus batch paper_tflops (model FLOPs, = MFU x 989)
rows2='1.7B 16 2048 24 1 1 48 192 408.8
7.1B 32 4096 30 2 1 96 192 465.9
16B 48 6144 32 4 1 192 192 489.1
32B 56 7168 48 8 1 384 192 459.6
70B 64 8192 84 8 2 768 384 419.7
119B 80 10240 92 8 4 1536 768 420.5
177B 96 12288 96 8 6 2304 1152 432.8
314B 128 16384 96 8 8 3072 1536 474.4
462B 144 18432 112 8 16 6144 3072 459.9'
topo2=dgx-h100-x2048
plan=$(mktemp)
errs2=$(mktemp)
trap 'rm -f "$errs" "$errs2" "$plan"' EXIT
echo
echo "### Megatron-Core on H100 (reference/plans.md §1.4; a check, not calibrated)"
echo
echo "Topology dgx-h100-x2048 (the preset: DGX H100 nodes with their own NCCL settings, 16 channels,"
echo "on InfiniBand NDR rails; until 2026-11-28 a hand-written cluster file that ran one channel), GPU"
echo "h100-sxm with its kernel figures (docs/plans.md \"Compute\"). Assumed (the README gives only the flags"
echo "--overlap-grad-reduce --overlap-param-gather --tp-comm-overlap): GPT with MLP 4h, vocab"
echo "131072, sequence 4096, micro batch 1, no interleaving, no recomputation, flash attention,"
echo "sequence parallelism, distributed optimizer (ZeRO-1), TP communication overlap, DP 48."
echo "Compared: model TFLOP/s per GPU (the README's MFU x 989)."
echo
echo "| model | TP | PP | GPUs | batch | paper TFLOP/s | collsim TFLOP/s | error | bubble | exposed DP |"
echo "|---|---|---|---|---|---|---|---|---|---|"
echo "$rows2" | while read -r size heads hidden layers tp pp gpus batch paper; do
    printf '{"model": {"layers": %s, "hidden": %s, "heads": %s, "seq_len": 4096, "vocab": 131072},
 "train": {"global_batch": %s, "micro_batch": 1, "flash_attention": true},
 "parallel": {"tp": %s, "pp": %s, "dp": 48, "sequence_parallel": true, "zero": 1,
              "tp_comm_overlap": true},
 "system": {"topo": "%s", "gpu": "h100-sxm"}}\n' "$layers" "$hidden" "$heads" "$batch" "$tp" \
        "$pp" "$topo2" > "$plan"
    "$collsim" plan "$plan" --format json | python3 -c "
import json, sys
r = json.load(sys.stdin)
b = r['breakdown_s']
got = r['model_tflops_per_gpu']
open('$errs2', 'a').write('%s %.6f\\n' % ('$size', 100 * (got - $paper) / $paper))
print('| $size | $tp | $pp | $gpus | $batch | $paper | %.1f | %+.1f%% | %.1f%% | %.1f%% |' % (
    got, 100 * (got - $paper) / $paper, 100 * b['pipeline_bubble'] / r['step_time_s'],
    100 * b['dp_exposed'] / r['step_time_s']))"
done
echo
python3 - "$errs2" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
e = [float(x[1]) for x in rows]
worst = max(rows, key=lambda x: abs(float(x[1])))
print("Rows within 10%%: %d of %d; largest error %+.1f%% (%s); mean absolute error %.1f%%."
      % (sum(abs(x) <= 10 for x in e), len(e), float(worst[1]), worst[0], sum(map(abs, e)) / len(e)))
PY

# Part 3: Megatron SC'21 Table 2 (ZeRO-3 without model parallelism, DeepSpeed, 175B, global
# batch 1536 on 384/768/1536 A100 with micro batch 4/2/1: one microbatch a step), not fitted.
rows3='384 4 144
768 2 88
1536 1 44'
ch16=$(mktemp)
printf '{"kind": "cluster", "name": "384 x DGX A100, NCCL channels 16", "nodes": 384,
 "node": "dgx-a100", "fabric": {"type": "rail"}, "nccl": {"channels": 16}}\n' > "$ch16"
echo
echo "### ZeRO-3 at fixed global batch (Megatron SC'21 Table 2; a check, not calibrated)"
echo
echo "GPT-3 175B (gpt3-175b), a100-80gb, ZeRO-3 over every GPU (tp 1, pp 1), global batch 1536,"
echo "full recomputation, no flash attention; hardware TFLOP/s per GPU (eq. 3). Topologies: Table"
echo "1's (tests/data/ok/plan-a100-cluster.json, one NCCL channel: a ring leaves a node by one"
echo "NIC, allgather busbw 24 GB/s) and the same nodes with 16 channels (as the oci-a100-x2"
echo "preset's node: busbw 191 GB/s on 2 nodes)."
echo
echo "| GPUs | micro batch | paper TFLOP/s | 1 channel | error | exposed DP | 16 channels | error |"
echo "|---|---|---|---|---|---|---|---|"
echo "$rows3" | while read -r gpus mbs paper; do
    for t in "$topo" "$ch16"; do
        "$collsim" plan --model gpt3-175b --gpu a100-80gb --topo "$t" --dp "$gpus" --zero 3 \
            --gbs 1536 --mbs "$mbs" --recompute full --flash-attention off --format json
    done | python3 -c "
import json, sys
d = json.JSONDecoder()
txt = sys.stdin.read().strip()
a, i = d.raw_decode(txt)
b, _ = d.raw_decode(txt[i:].strip())
e = lambda r: 100 * (r['hw_tflops_per_gpu'] - $paper) / $paper
print('| $gpus | $mbs | $paper | %.1f | %+.1f%% | %.1f%% | %.1f | %+.1f%% |' % (
    a['hw_tflops_per_gpu'], e(a), 100 * a['breakdown_s']['dp_exposed'] / a['step_time_s'],
    b['hw_tflops_per_gpu'], e(b)))"
done
rm -f "$ch16"

# Part 4: Korthikanti et al. (arXiv 2205.05198, MLSys 2023) Table 5, held out (issue 26):
# iteration time with full recompute (TP without SP, Megatron's baseline) and with the paper's
# "present work" (SP + selective recompute). Layouts of Table 3 (dp 1, sequence 2048) as
# Calculon encodes them (github calculon-ai/calculon validation/seqsel/tab5/*.json, its
# models/*.json; the times in calculon/llm/validation.py seqsel_tab5): vp 3 for 175B and
# 530B, no interleaving for 22B and 1T, fp16. Assumed: vocab 51200 (Megatron's padded GPT-2
# vocabulary; Calculon models no vocabulary), no flash attention (Megatron of 2022).
# name layers hidden heads tp pp vp gbs mbs full_s present_s
rows4='22B 48 6144 64 8 1 1 4 4 1.42 1.10
175B 96 12288 96 8 8 3 64 1 18.13 13.75
530B 105 20480 128 8 35 3 280 1 49.05 37.83
1T 128 25600 160 8 64 1 512 1 94.42 71.49'
errs4=$(mktemp)
echo
echo "### Korthikanti et al. Table 5 (TP + PP, full vs selective recompute; held out, not fitted)"
echo
echo "Iteration time of arXiv 2205.05198 Table 5 on Selene (DGX A100 80 GB, 8 HDR NICs a node):"
echo "\"full\" is full recompute with TP alone, \"present\" sequence parallelism with selective"
echo "recompute. Layouts of its Table 3 as Calculon's validation encodes them (dp 1, micro batch"
echo "4 for 22B and 1 otherwise, vp 3 for 175B and 530B), fp16; assumed vocab 51200 and no flash"
echo "attention. Topology tests/data/ok/plan-a100-cluster.json (Table 1's)."
echo
echo "| model | GPUs | layout | experiment | paper s | collsim s | error | bubble | exposed TP |"
echo "|---|---|---|---|---|---|---|---|---|"
echo "$rows4" | while read -r name l h a tp pp vp gbs mbs full present; do
    sched=1f1b
    [ "$vp" -gt 1 ] && sched=interleaved
    for x in full present; do
        if [ "$x" = full ]; then rc=full sp=false paper=$full
        else rc=selective sp=true paper=$present; fi
        printf '{"model": {"layers": %s, "hidden": %s, "heads": %s, "seq_len": 2048,
           "vocab": 51200},
 "train": {"global_batch": %s, "micro_batch": %s, "recompute": "%s", "dtype": "fp16",
           "flash_attention": false},
 "parallel": {"tp": %s, "pp": %s, "dp": 1, "vp": %s, "sequence_parallel": %s,
              "schedule": "%s"},
 "system": {"topo": "%s", "gpu": "a100-80gb"}}\n' "$l" "$h" "$a" "$gbs" "$mbs" "$rc" "$tp" \
            "$pp" "$vp" "$sp" "$sched" "$topo" > "$plan"
        "$collsim" plan "$plan" --format json | python3 -c "
import json, sys
r = json.load(sys.stdin)
b = r['breakdown_s']
t = r['step_time_s']
e = 100 * (t - $paper) / $paper
open('$errs4', 'a').write('%s-%s %.6f\\n' % ('$name', '$x', e))
print('| $name | %d | tp $tp pp $pp vp $vp mbs $mbs | $x | $paper | %.2f | %+.1f%% | %.1f%% '
      '| %.1f%% |' % (r['gpus'], t, e, 100 * b['pipeline_bubble'] / t, 100 * b['tp_exposed'] / t))"
    done
done
echo
python3 - "$errs4" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
e = [abs(float(x[1])) for x in rows]
worst = max(rows, key=lambda x: abs(float(x[1])))
print("Median |error| %.1f%% over %d rows; largest %+.1f%% (%s); within 5%%: %d of %d."
      % (statistics.median(e), len(e), float(worst[1]), worst[0], sum(x <= 5 for x in e), len(e)))
PY
rm -f "$errs4"

echo
echo "### Megatron-Bridge's performance summary (NeMo 25.11; held out, not fitted)"
echo
python3 "$here/bridge_check.py" "$collsim" "$here/../tests/data/plans/megatron-bridge-25.11.json"

echo
echo "### Peak memory against torchtitan's H100 rows (scenarios/memory_check.py; a check, not fitted)"
echo
echo "torchtitan's max reserved memory per GPU (TT-H100 rows of tests/data/plans/points.json)"
echo "against the plan's total less CUDA context and NCCL buffers, which the allocator's figure"
echo "leaves out; torchtitan's loss as it runs it (\`--loss pytorch\`: 16-bit logits, fp32 copy"
echo "and fp32 log-softmax together); rows with pp > 1 skipped."
echo
echo '```'
python3 "$here/memory_check.py" "$collsim" "$here/../tests/data/plans/points.json"
echo '```'

echo
echo "### The development set (tests/data/plans/points.json; scenarios/plan_accuracy.py)"
echo
echo "Every published point of the development set collsim can rebuild (llm-foundry, torchtitan,"
echo "fms-fsdp; A100 and H100, BF16 and FP8, FSDP/ZeRO-3, 8 to 128 GPUs), rebuilt as the source"
echo "states it (plan_accuracy.py says how: topology, attention kernel, eager or fused kernels),"
echo "compared in tokens/s per GPU. \"fitted\" marks the rows a figure was chosen with."
echo
python3 "$here/plan_accuracy.py" "$collsim"
echo
echo "Run time of the script: $(( $(date +%s) - start )) s."
