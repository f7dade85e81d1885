// The words of the CLI: one usage text per command (the command table points at them). A leaf module, so
// that a command can print its own usage without importing the table.

export const GENERATE_USAGE = `Usage: verispec generate [--spec <dir>] [--out <dir>] [--watch]

Loads the spec, checks it, and writes every generated file to the output directory atomically: all files
or none. A broken spec file is reported as file:line:col with a diagnostic code, what was found and what
was expected (exit 2). The output is JavaScript with declarations (.d.ts) beside it: the client, the
types, the validators, webhook verification and the life cycle, with their runtime.

  --spec <dir>   spec directory (default: ./spec, else the package's own spec)
  --out <dir>    output directory (default: ./generated)
  --watch        regenerate on every change of the spec directory, one line a run (the files written,
                 or the diagnostics); keeps watching after a broken spec; Ctrl-C ends it (exit 0)`;

export const CHECK_USAGE = `Usage: verispec check [--spec <dir>] [--out <dir>] [--diff]

Regenerates in memory and compares with the output directory. Exit 0 when current (it prints the spec's
hash, specHash); exit 1 when stale, with the hash the output was generated from and one line per stale
file (changed, missing, or no longer generated); exit 2 on a broken spec.

  --diff         print a short diff under each changed file`;

export const SCHEMAS_USAGE = `Usage: verispec schemas [--spec <dir>] [--out <dir>]

Prints the schema ids, one a line (use them with 'verispec validate' and generated/schemas/<id>.json).
Reads the manifest of the generated output (./generated, else the package's own); with --spec, builds the
ids from that spec instead.`;

export const VALIDATE_USAGE = `Usage: verispec validate <schemaId> <file|-> [--out <dir>]

Validates a JSON document (a file, or standard input with '-') against a schema id.
Prints {"valid":true} and exits 0, or {"valid":false,"errors":[{message,code,path}]} and exits 1.
An unknown schema id, a missing file, text that is not JSON (the line and column where parsing failed;
the text is never quoted) or a document larger than 10 MiB (10,485,760 bytes; not read past that):
one line on stderr and exit 2. A leading UTF-8 byte order mark is ignored.
Uses <out>/validators when --out is given or ./generated/validators exists, else the package's own.`;

export const DOCS_USAGE = `Usage: verispec docs [--out <dir>]

Writes <out>/docs/index.html from <out>/openapi.json with Redocly CLI (Redoc bundled inline): one
self-contained page that loads nothing from the network. Beside it, one page per user guide of the
package (docs/*.md, e.g. sandbox.html), with a navigation bar across all of them. Run 'verispec
generate' first. Needs the optional package @redocly/cli (npm install --save-dev @redocly/cli).`;

export const WEBHOOK_USAGE = `Usage: verispec webhook verify --body <file> --header "Name: value" [--header ...]
                              [--now <unix-ms>] [--secret-file <path>]

Checks a received webhook: signature (version 1 or 2), payload and timestamp.

  --body <file>         the exact bytes received (not re-serialised JSON)
  --header "Name: value"  a received header; repeat for each (e.g. X-Svc-Signature, X-Svc-Signature-version)
  --now <unix-ms>       the time to check the timestamp against (default: now)
  --secret-file <path>  file holding the signing key (one trailing newline is ignored)
  -h, --help            show this text

The signing key is read from --secret-file, or else from the environment variable
VERISPEC_SIGNING_SECRET. It is never accepted as an argument.

Prints {"valid":true,"version":"1"|"2"} and exits 0, or {"valid":false,"reason":"<reason>"} and exits 1.
Usage errors exit 2.
`;

export const SANDBOX_USAGE = `Usage: verispec sandbox [--spec <dir>] [--host 127.0.0.1] [--port 4010] [--db <dir>|memory|<postgres url>]
                        [--webhook-url <url>]... [--signature-version 2|1] [--processing-ms <n>|manual]
                        [--requested-actions-path <path>] [--max-body <bytes>]
                        [--delivery-timeout-ms <n>] [--retry-delays <ms,ms,...>] [--reset-clock] [--debug]
                        [--log-format text|json] [--shutdown-timeout-ms <n>] [--retain-days <n>]
                        [--tenants <file>]

Runs the verification service on this machine: every endpoint of the specification (section 4) with its
authentication, states and transitions from spec/statuses.yaml, attempts, 474/475, hosted forms with
their limits, and signed webhooks delivered to each --webhook-url. The identity checks are simulated:
a name containing the word "Rejected" or "Info" picks that outcome (spec/sandbox.yaml testValues).

  --spec <dir>                    the spec served: its rules, limits and validators, read at start with no
                                  build step (default ./spec when present, else the package's own spec);
                                  a broken spec stops with its diagnostics (exit 2)
  --host <host>                   address to bind (default 127.0.0.1)
  --port <n>                      port (default 4010; 0 takes a free port)
  --db <dir|memory|url>           PGlite in a directory (default .verispec/sandbox), PGlite in memory,
                                  or a postgres:// URL (several instances may share it)
  --webhook-url <url>             receiver of the webhooks; repeat for several
  --signature-version 2|1         webhook signature version, of the served spec's (default 2)
  --processing-ms <n>|manual      a pending verification completes after n ms (default 1000); manual:
                                  only POST /_sandbox/verifications/:trace/status moves it
  --requested-actions-path <p>    path of the follow-up request for requested actions (default
                                  /requestedActions; the specification does not show the path)
  --max-body <bytes>              largest request body (default 1048576; larger: 413)
  --delivery-timeout-ms <n>       a webhook delivery without an answer in n ms is retried (default 5000)
  --retry-delays <ms,...>         delays between delivery retries (default 1000,5000,30000,120000,600000)
  --reset-clock                   set the stored sandbox clock back to real time before starting
  --debug                         log internal errors with their stack
  --log-format text|json          text lines (default), or JSON lines on stderr with one per request
                                  (time, level, requestId, method, route, status, durationMs); needs pino
  --shutdown-timeout-ms <n>       on SIGTERM, how long in-flight requests and deliveries may take (default
                                  10000); then the remaining connections are closed and it exits 0
  --retain-days <n>               keep verifications, history, finished deliveries and forms for n days
                                  (default 30; 0 keeps everything); older ones are deleted in small batches
  --tenants <file>                several accounts in one sandbox, each seeing only its own data: a YAML
                                  file (mode 600) of name, serviceUid, secret, signingSecret, webhookUrls
                                  (default: VERISPEC_SANDBOX_TENANTS); see docs/operating-a-shared-sandbox.md

Credentials come from the environment: VERISPEC_SANDBOX_SERVICE_UID and VERISPEC_SANDBOX_SECRET (HTTP
Basic on /v5 and /_sandbox, metadata_serviceUid/metadata_secretKey on the older endpoints) and
VERISPEC_SIGNING_SECRET (webhook signing key). One that is unset gets a test value, printed once at
start; a value from the environment is never printed. With --tenants, the environment's account (when
both credentials are set) is the tenant named default, and no test value is made.

At start, prints 'verispec sandbox serving <spec dir> (specVersion <v>)'; when ready,
'verispec sandbox listening on http://<host>:<port>'. Control API (same credentials):
POST /_sandbox/verifications/:trace/status, POST /_sandbox/clock,
GET /_sandbox/deliveries?trace=&userId=&status=&limit=&cursor= (a page and its nextCursor),
POST /_sandbox/deliveries/:deliveryId/resend; the page GET /_sandbox. Without credentials: GET /healthz,
GET /readyz (database reachable, migrations applied) and GET /metrics (Prometheus; needs prom-client).
SIGINT/SIGTERM stop it cleanly. Operating one for a team: docs/operating-a-shared-sandbox.md.`;

export const DIFF_USAGE = `Usage: verispec diff <base> [<head>] [--format text|json|markdown] [--fail-on breaking|warning]
                    [--config <file>] [--spec <dir>] [--checks]

Compares two versions of the spec and reports each change with a check id, a severity (breaking,
warning, info), the audience it affects (request senders, response and webhook readers, behaviour) and
where it is (spec file:line on both sides, schema id and JSON Pointer, operation or webhook).

  <base>, <head>        a spec directory, or a git revision of this repository (HEAD~1, main, a tag),
                        read with git without touching the work tree; <head> defaults to ./spec
  --format <f>          text (default; colours only on a terminal), json, or markdown (a changelog section)
  --fail-on <s>         exit 1 when a finding is at least this severe (default: breaking)
  --config <file>       severity overrides (default: ./.verispec-diff.yaml when it exists):
                          severities: { <check id>: breaking|warning|info|none }
  --spec <dir>          the spec directory whose place in the repository a revision is read from
  --checks              list every check id with its default severity and audience

Exit 0 when nothing reaches --fail-on, 1 when something does, 2 on a usage or spec error.`;

export const CONFORM_USAGE = `Usage: verispec conform <base-url> [--format text|json|junit] [--max-requests <n>] [--rate <n>]
                        [--receive-on <host:port>] [--webhook-wait-ms <n>] [--timeout-ms <n>]
                        [--max-body-bytes <n>] [--requested-actions-path <path>] [--allow-http] [--spec <dir>]
       verispec conform --proxy <listen host:port> <upstream-url> [--receive-on <host:port>]
                        [--duration <seconds>] [--format text|json|junit] [--requested-actions-path <path>]
                        [--allow-http] [--spec <dir>]

Checks a server that claims to be the service, black-box, against the spec: the conformance vectors of
every operation (valid payloads answered 200 with a body valid against the response schema; invalid ones
answered 422 with exactly the vector's issues), GET by trace (the detail matches what was sent), the
attempt cycle (474 after the cap, 475 while pending) where the server has a control API (the sandbox's;
otherwise skipped, with the reason), and with --receive-on the webhooks it sends (each verified, its
payload valid, its order per trace).

Credentials come from the environment, never from arguments, and are never printed:
  VERISPEC_CONFORM_SERVICE_UID, VERISPEC_CONFORM_SECRET   the service UID and API secret
  VERISPEC_SIGNING_SECRET                                 the webhook signing key (with --receive-on)

Safe by default: at most --max-requests requests (default 100; checks past it are skipped and counted), at
most --rate requests a second (default 10), every created verification named "verispec conform test data",
and https required for any host but this machine unless --allow-http.

  --format <f>               text (default: one line per failed check, then a summary), json or junit
  --receive-on <host:port>   receive webhooks here (configure the server to send them to this address)
  --webhook-wait-ms <n>      how long to wait for the webhooks of created verifications (default 5000)
  --timeout-ms <n>           per request (default 10000)
  --requested-actions-path   where the server serves the follow-up request (its path is not shown)
  --max-body-bytes <n>       the largest answer read (default 4194304); answers also end within --timeout-ms
                             and nest at most 256 levels: past a bound, a failed check naming it

Authentication is checked too: wrong, missing and malformed credentials on each interface must be refused
(not a 2xx) and create nothing. Credentials the server refuses before accepting them once end the run (exit 2).
An exchange without an answer is a failed check; after 5 the run stops, and the report is still written.

--proxy <listen> <upstream>: forwards every request to <upstream> unchanged and judges each exchange as it
passes (request and answer schemas, the predicted 422 issues, transitions and attempts seen through GET,
474/475), and with --receive-on each webhook. One line per finding as it happens; the report at Ctrl-C or
after --duration seconds.

Exit 0 when every check held, 1 when a check failed, 2 on a usage error, 3 when the server was unreachable
at the start.`;
