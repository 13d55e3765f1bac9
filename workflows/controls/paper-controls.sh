#!/usr/bin/env bash
# The controls of docs/reproduction.md (issue 50), run on the very bytes the paper run solved:
#   workflows/controls/paper-controls.sh RUN [nulls] [budgets] [seeds] [aer] [warm]     (default: every step)
#   qlsbench ship RUN --config workflows/controls/paper-controls.yaml --out docs/reproduction-controls
#   qlsbench figure reproduction docs/reproduction --controls docs/reproduction-controls --out docs/reproduction.md
# RUN is a folder of its own; the shipped datasets are copied into it and fig. 2's shipped shards merged there
# first, so the seeds added here extend the shipped ones (`--add-repeats`) and every solve reads the same bytes. Each
# step resumes: a finished results file is kept, and --add-repeats solves only the seeds it lacks.
set -euo pipefail
run=${1:?usage: paper-controls.sh RUN [nulls budgets seeds aer warm]}
shift
steps=${*:-nulls budgets seeds aer warm}
shipped=$(cd "$(dirname "$0")/../../docs/reproduction" && pwd)
mkdir -p "$run/results/shards"
cd "$run"
[ -d datasets ] || cp -r "$shipped/datasets" datasets
export QLSBENCH_THREADS=${QLSBENCH_THREADS:-1}
I=datasets/ising/kappa10/part-0000.parquet
C=datasets/dem_c_checkpoints/sedimentation-n100-mu0-h1e-4/part-0000.parquet
FIG2="--option shots=1000 --option optimizer=qnspsa --option layers=4 --option maxiter=200"
# solve ARGS... OUT: one `qlsbench solve` into OUT, skipped when OUT is finished (unless it adds repeats)
solve() {
  local out=${*: -1} args=("${@:1:$#-1}")
  if [ -e "$out" ] && [[ " ${args[*]} " != *" --add-repeats "* ]]; then return 0; fi
  echo "== $(date +%T) qlsbench solve ${args[*]} --out $out"
  mkdir -p "$(dirname "$out")"
  qlsbench solve --quiet --time-limit 36000 --seed 0 "${args[@]}" --out "$out"
}
for step in $steps; do
  case $step in
    nulls)  # returning b and a random vector, 20 seeds (the most any configuration runs)
      for n in null-b null-random; do
        solve --solver $n --dataset $I --repeats 20 results/$n/ising/kappa10.parquet
        solve --solver $n --dataset $C --repeats 20 results/$n/dem_c_checkpoints/sedimentation-n100-mu0-h1e-4.parquet
      done;;
    budgets)  # the local cost's optimiser budget: L-BFGS-B on exact values, QN-SPSA at 1000 iterations
      solve --solver vqls-local --label vqls-local-lbfgsb --option backend=exact --option optimizer=lbfgsb \
        --option ansatz=brickwall --option layers=4 --option maxiter=200 --dataset $I --repeats 5 \
        results/vqls-local-lbfgsb/ising/kappa10.parquet
      solve --solver vqls-local --label vqls-local-qnspsa1000 --option backend=shots-emulated --option shots=1000 \
        --option ansatz=brickwall --option layers=4 --option optimizer=qnspsa --option maxiter=1000 --dataset $I \
        --repeats 5 results/vqls-local-qnspsa1000/ising/kappa10.parquet;;
    seeds)  # every emulated fig. 2 configuration to 10, 15 and 20 seeds; the page keeps what the stopping rule asks
      for l in vqls-local vqls-global vqls-local-ladder vqls-global-ladder; do
        out=results/$l/ising/kappa10.parquet
        mkdir -p "$(dirname "$out")"
        [ -e "$out" ] || qlsbench merge --dataset $I --out "$out" "$shipped"/results/shards/$l/ising/kappa10/*-of-7.parquet
      done
      for r in 10 15 20; do
        for l in vqls-local vqls-global vqls-local-ladder vqls-global-ladder; do
          s=${l%-ladder}; a=brickwall; [ "$l" != "$s" ] && a=ladder
          solve --solver $s --label $l --option backend=shots-emulated --option ansatz=$a $FIG2 --dataset $I \
            --repeats $r --add-repeats results/$l/ising/kappa10.parquet
        done
      done;;
    aer)  # Aer's own 1000-shot circuits at 6, 7, 8 qubits (shard k of 7 is the (9 - k)-qubit system), 2 seeds
      for k in 3 2 1; do
        for s in vqls-global vqls-local; do
          solve --solver $s --label $s-aer --option backend=shots --option ansatz=brickwall $FIG2 --dataset $I \
            --shard $k/7 --repeats 2 results/shards/$s-aer/ising/kappa10/$k-of-7.parquet
        done
      done;;
    warm)  # the kappa-vs-h study's five runs with Newton from the previous step's impulses
      for spec in 2e-3:641:160 1e-3:1281:320 5e-4:2561:640 2.5e-4:5121:1280 1e-4:12801:3200; do
        IFS=: read -r h n every <<< "$spec"
        out=datasets/dem_c/sedimentation-n100-mu0-h$h-warm
        [ -e "$out/part-0000.parquet" ] && continue
        qlsbench simulate --scene sedimentation --n-spheres 100 --mu 0 --steps "$n" --seed 0 --every "$every" \
          --h "$h" --newton-start warm --name "sedimentation-n100-mu0-h$h-warm" --out "$out" --quiet
      done;;
    *) echo "unknown step $step (nulls, budgets, seeds, aer, warm)" >&2; exit 2;;
  esac
done
