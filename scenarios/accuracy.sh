#!/bin/sh
# accuracy.sh: Megatron SC'21 Table 1 (weak scaling, GPT 1.7B -> 1T on DGX A100 nodes)
# against `collsim plan`. Prints the ACCURACY.md section: every row's achieved TFLOP/s per
# GPU (hardware FLOPs with full recompute, the paper's eq. 3 count) and the error.
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
trap 'rm -f "$errs"' EXIT
python3 - "$here/gpus/a100-80gb.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
print("GPU a100-80gb: %g TFLOP/s bf16 peak, %g GB/s HBM; efficiency curve eff(F) = %g x F / (F + %g GFLOP) "
      "for a kernel of F GFLOP, elementwise kernels at %g of HBM bandwidth (scenarios/gpus/a100-80gb.json)."
      % (g["peak_tflops"]["bf16"], g["hbm_GBps"], g["gemm_eff_max"], g["gemm_half_GFLOP"], g["mem_eff"]))
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
        --format json | python3 -c "
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
echo
echo "Run time of the script: $(( $(date +%s) - start )) s."
