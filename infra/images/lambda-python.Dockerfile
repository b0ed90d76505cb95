# Local equivalent of public.ecr.aws/lambda/python:3.12 (infra/images/base.sh): Debian bookworm (minbase) with
# this machine's CPython 3.12 in /var/lang, awslambdaric and boto3 in /var/runtime, /var/runtime/bootstrap, and
# the Runtime Interface Emulator from the SAM CLI. Used only where the official image cannot be pulled.
ARG BASE
FROM ${BASE}
COPY ca/ /usr/local/share/ca-certificates/
RUN update-ca-certificates >/dev/null && printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' > /etc/pip.conf
COPY python/ /var/lang/
COPY runtime-requirements.txt /tmp/runtime-requirements.txt
RUN echo /var/lang/lib > /etc/ld.so.conf.d/python.conf && ldconfig \
    && ln -sf python3.12 /var/lang/bin/python3 && ln -sf python3.12 /var/lang/bin/python \
    && /var/lang/bin/python3.12 -m ensurepip --default-pip >/dev/null \
    && /var/lang/bin/python3.12 -m pip install -q --no-cache-dir --disable-pip-version-check \
       --target /var/runtime -r /tmp/runtime-requirements.txt \
    && rm /tmp/runtime-requirements.txt \
    && find /var/lang/lib/python3.12 /var/runtime -name __pycache__ -prune -exec rm -rf {} + \
    && mkdir -p /var/task /opt
COPY lambda-bootstrap /var/runtime/bootstrap
COPY lambda-entrypoint.sh /lambda-entrypoint.sh
COPY aws-lambda-rie /usr/local/bin/aws-lambda-rie
RUN chmod 755 /var/runtime/bootstrap /lambda-entrypoint.sh /usr/local/bin/aws-lambda-rie
ENV LANG=en_US.UTF-8 \
    TZ=:/etc/localtime \
    PATH=/var/lang/bin:/usr/local/bin:/usr/bin/:/bin:/opt/bin \
    LD_LIBRARY_PATH=/var/lang/lib:/lib64:/usr/lib64:/var/runtime:/var/runtime/lib:/var/task:/var/task/lib:/opt/lib \
    LAMBDA_TASK_ROOT=/var/task \
    LAMBDA_RUNTIME_DIR=/var/runtime
WORKDIR /var/task
ENTRYPOINT ["/lambda-entrypoint.sh"]
