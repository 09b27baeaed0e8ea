#!/usr/bin/env bash
# The main job against object storage: an S3 API server on loopback (moto's), the
# parameter-server demo writing its logs there, and `visualdl` reading them from there.
#
#   bash demo/ps_train_s3.sh [ps_train.py options] [-- visualdl options]
#
# Needs `pip install -U pip && pip install ".[demo,s3]" "moto[s3]" flask-cors` (an old pip's
# resolver gives up on the S3 client's pins). Point AWS_ENDPOINT_URL (and the
# usual AWS_* credentials) at a real store instead and the same two commands inside work
# unchanged: `python3 demo/ps_train.py --logdir s3://BUCKET/logs` and
# `visualdl --logdir s3://BUCKET/logs`.
set -euo pipefail
cd "$(dirname "$0")/.."
port="${S3_PORT:-9000}"
bucket="${S3_BUCKET:-visualdl-demo}"
demo_args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do demo_args+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift

export AWS_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-testing}" AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-testing}"
export AWS_DEFAULT_REGION="${AWS_DEFAULT_REGION:-us-east-1}" AWS_ENDPOINT_URL="http://127.0.0.1:$port"
moto_server -H 127.0.0.1 -p "$port" >/dev/null 2>&1 &
moto=$!
trap 'kill "$moto" 2>/dev/null || true' EXIT
python3 - "$bucket" <<'PY'
import sys, time
import s3fs

deadline = time.monotonic() + 30
while True:
    try:
        fs = s3fs.S3FileSystem(skip_instance_cache=True)
        if not fs.exists(sys.argv[1]):
            fs.mkdir(sys.argv[1])
        break
    except OSError:
        if time.monotonic() > deadline:
            raise
        time.sleep(0.2)  # the S3 server is starting
PY
echo "S3 API server on $AWS_ENDPOINT_URL, bucket $bucket"
python3 demo/ps_train.py --logdir "s3://$bucket/logs" --elastic "${demo_args[@]}"
visualdl --logdir "s3://$bucket/logs" "$@"
