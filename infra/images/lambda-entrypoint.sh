#!/bin/sh
# Entry point of the local Lambda Python 3.12 image: under Lambda (AWS_LAMBDA_RUNTIME_API set) run the
# bootstrap; otherwise start the Runtime Interface Emulator in front of it (docker run -p 9000:8080 ...).
if [ $# -ne 1 ]; then echo "entrypoint requires the handler name as its only argument" >&2; exit 142; fi
export _HANDLER="$1"
if [ -z "${AWS_LAMBDA_RUNTIME_API:-}" ]; then
  exec /usr/local/bin/aws-lambda-rie /var/runtime/bootstrap "$1"
fi
exec /var/runtime/bootstrap "$1"
