#!/usr/bin/env bash
# make demo: a worker of its own on ports 5575/5576, sample strokes replayed into it, events printed; then a
# player teaches it a gesture of their own and draws it again, symbols of several strokes, a game that allows a
# few spells at a time, and one steered by swipes and taps.
set -euo pipefail
cd "$(dirname "$0")/.."
dataset=../shared/datasets/dollar1
if [ -d "$dataset/s02" ]; then
    samples=$(mktemp -d)
    trap 'rm -rf "$samples"' EXIT
    # One speed of one subject: 160 strokes of the 16 gestures.
    mkdir -p "$samples/s02/medium" && cp "$dataset"/s02/medium/*.xml "$samples/s02/medium/"
    dataset=$samples
else
    echo "(../shared is absent: replaying the strokes shipped under Tests/)"
    dataset=Tests/StrokeRecognitionTests/Fixtures/dollar1-mini
fi
scripts/with-worker.sh .build/release/stroke-worker 5575 5576 -- \
    env PYTHONPATH=clients/python python3 -m stroke_client.replay --dataset "$dataset" --sessions 16 \
    --speed recorded --verbose
echo
echo "A gesture of the player's own (Protocol/README.md, section 4.1):"
scripts/with-worker.sh .build/release/stroke-worker 5575 5576 -- python3 clients/python/examples/learn_gesture.py
echo
echo "Symbols of several strokes (Protocol/README.md, section 4.2):"
scripts/with-worker.sh .build/release/stroke-worker 5575 5576 -- python3 clients/python/examples/symbols.py
echo
echo "Spells the game allows now, and those it does not (Protocol/README.md, section 4, gestures):"
scripts/with-worker.sh .build/release/stroke-worker 5575 5576 -- python3 clients/python/examples/spells.py
echo
echo "Swipes, and a tap too small to be a gesture (docs/Recognition.md, \"Swipes\" and \"Taps\"):"
STROKE_WORKER_LIBRARY=Libraries/swipes.json \
    scripts/with-worker.sh .build/release/stroke-worker 5575 5576 -- python3 clients/python/examples/swipes.py
echo
echo "An arrow shot the way it is drawn: a match's rotation (docs/Recognition.md, \"A match's rotation\"):"
scripts/with-worker.sh .build/release/stroke-worker 5575 5576 -- python3 clients/python/examples/aim.py
