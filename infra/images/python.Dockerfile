# Local equivalent of python:3.12-slim-bookworm (infra/images/base.sh): Debian bookworm (minbase) with this
# machine's CPython 3.12 in /usr/local, pip from ensurepip. Used only where the official image cannot be pulled.
ARG BASE
FROM ${BASE}
COPY ca/ /usr/local/share/ca-certificates/
RUN update-ca-certificates >/dev/null && printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' > /etc/pip.conf
COPY python/ /usr/local/
RUN echo /usr/local/lib > /etc/ld.so.conf.d/python.conf && ldconfig \
    && ln -sf python3.12 /usr/local/bin/python3 && ln -sf python3.12 /usr/local/bin/python \
    && /usr/local/bin/python3.12 -m ensurepip --default-pip >/dev/null \
    && ln -sf pip3 /usr/local/bin/pip \
    && find /usr/local/lib/python3.12 -name __pycache__ -prune -exec rm -rf {} + \
    && python3 -c 'import ssl, sqlite3, ctypes, zlib, bz2, lzma, uuid, readline, json, decimal, hashlib'
ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 \
    PYTHON_VERSION=3.12
CMD ["python3"]
