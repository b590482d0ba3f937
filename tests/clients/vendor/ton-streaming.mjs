// @ton/ton's Streaming API v2 clients (TonSseClient, TonWsClient), unchanged:
// ton-org/ton src/client/streaming at commit
// 491c7b36417eabd1c70d121cd7e5d0314b761b53 (pull request #188, not yet in a
// release: @ton/ton 16.3.0 ships no streaming client), bundled by esbuild
// 0.25.12:
//   esbuild src/client/streaming/index.ts --bundle --platform=node \
//     --format=esm --target=node20 --legal-comments=inline
// (it imports nothing outside its folder). Copyright (c) Whales Corp., MIT
// licence: tests/data/licenses/ton-org__ton.txt. Do not edit: rebuild it.
// src/client/streaming/utils.ts
function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const d = {
    promise,
    settled: false,
    resolve(value) {
      if (!d.settled) {
        d.settled = true;
        resolve(value);
      }
    },
    reject(error) {
      if (!d.settled) {
        d.settled = true;
        reject(error);
      }
    }
  };
  return d;
}
var FINALITIES = ["pending", "confirmed", "finalized"];
var FINALITY_SET = new Set(FINALITIES);
var NON_PENDING_FINALITIES = ["confirmed", "finalized"];
var NON_PENDING_FINALITY_SET = new Set(
  NON_PENDING_FINALITIES
);
var SUBSCRIBABLE_EVENT_TYPES = [
  "transactions",
  "actions",
  "trace",
  "account_state_change",
  "jettons_change"
];
var SUBSCRIBABLE_EVENT_TYPE_SET = new Set(
  SUBSCRIBABLE_EVENT_TYPES
);
var DEFAULT_REQUEST_TIMEOUT_MS = 5e3;
var DEFAULT_PING_INTERVAL_MS = 15e3;
function isAbortError(reason) {
  return reason instanceof Error && reason.name === "AbortError";
}
function sanitizeStringList(values) {
  if (!values) {
    return void 0;
  }
  const seen = /* @__PURE__ */ new Set();
  const normalized = [];
  for (const rawValue of values) {
    if (typeof rawValue !== "string") {
      throw new TypeError("Expected a string value");
    }
    const value = rawValue.trim();
    if (!value || seen.has(value)) {
      continue;
    }
    seen.add(value);
    normalized.push(value);
  }
  return normalized.length > 0 ? normalized : void 0;
}
function requireStringList(values, fieldName) {
  const normalized = sanitizeStringList(values);
  if (!normalized) {
    throw new Error(
      `${fieldName} must contain at least one non-empty value`
    );
  }
  return normalized;
}
function normalizeTimeoutMs(value, defaultValue, fieldName) {
  if (value === void 0) {
    return defaultValue;
  }
  if (!Number.isFinite(value) || value < 0) {
    throw new Error(`${fieldName} must be a non-negative finite number`);
  }
  return Math.floor(value);
}
function appendQueryParameter(endpoint, key, value) {
  const url = new URL(endpoint);
  url.searchParams.set(key, value);
  return url.toString();
}
async function describeHttpError(response) {
  const statusPart = `${response.status} ${response.statusText}`.trim();
  let bodyText = "";
  try {
    if (typeof response.text === "function") {
      bodyText = (await response.text()).trim();
    }
  } catch {
  }
  return bodyText ? `${statusPart} \u2014 ${bodyText}` : statusPart;
}
function describeUnexpectedMessage(payload) {
  try {
    return JSON.stringify(payload);
  } catch {
    return String(payload);
  }
}
function isRecord(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function buildStreamingUrl(transport, params) {
  const resolved = resolveProviderEndpoint(
    transport,
    params.service,
    params.network,
    params.endpoint,
    params.apiKeyParam
  );
  return params.apiKey ? appendQueryParameter(
    resolved.endpoint,
    resolved.apiKeyParam,
    params.apiKey
  ) : resolved.endpoint;
}
function resolveProviderEndpoint(transport, service, network, endpoint, apiKeyParam) {
  if (service && endpoint) {
    throw new Error(
      "Cannot specify both 'service' and 'endpoint'. Use one or the other."
    );
  }
  if (service) {
    const domain = service === "tonapi" ? "tonapi.io" : "toncenter.com";
    const host = (network ?? "mainnet") === "testnet" ? `testnet.${domain}` : domain;
    const prefix = service === "toncenter" ? "/api" : "";
    const proto = transport === "ws" ? "wss" : "https";
    return {
      endpoint: `${proto}://${host}${prefix}/streaming/v2/${transport}`,
      apiKeyParam: service === "tonapi" ? "token" : "api_key"
    };
  }
  if (!endpoint) {
    throw new Error(
      "Streaming endpoint is required when service is not specified"
    );
  }
  return { endpoint, apiKeyParam: apiKeyParam ?? "api_key" };
}

// src/client/streaming/errors.ts
var StreamingError = class extends Error {
  context;
  constructor(message, context, options) {
    super(message);
    this.name = new.target.name;
    this.context = Object.freeze({ ...context });
    if (options?.cause !== void 0) {
      Object.defineProperty(this, "cause", {
        configurable: true,
        enumerable: false,
        value: options.cause,
        writable: false
      });
    }
  }
};
var StreamingRequestTimeoutError = class extends StreamingError {
};
var StreamingClosedError = class extends StreamingError {
};
var StreamingHandshakeError = class extends StreamingError {
};
var StreamingSupersededError = class extends StreamingError {
};
function wrapStreamingError(reason, context, fallback) {
  if (reason instanceof StreamingError) {
    return reason;
  }
  let message = fallback ?? String(reason);
  if (reason instanceof Error) {
    message = reason.message;
  } else if (typeof reason === "string" && reason) {
    message = reason;
  } else if (isRecord(reason)) {
    const msg = reason.message ?? reason.error;
    if (typeof msg === "string" && msg) {
      message = msg;
    }
  }
  return new StreamingError(message, context, { cause: reason });
}

// src/client/streaming/subscriptionState.ts
function resolveStreamingSubscription(params) {
  const types = requireStringList(params.types, "params.types").map(
    (type) => {
      if (!SUBSCRIBABLE_EVENT_TYPE_SET.has(type)) {
        throw new Error(`Unsupported streaming event type: ${type}`);
      }
      return type;
    }
  );
  types.sort();
  const addresses = sanitizeStringList(params.addresses) ?? [];
  addresses.sort();
  const traceExternalHashNorms = sanitizeStringList(params.traceExternalHashNorms) ?? [];
  traceExternalHashNorms.sort();
  const actionTypes = sanitizeStringList(params.actionTypes) ?? [];
  actionTypes.sort();
  const supportedActionTypes = sanitizeStringList(params.supportedActionTypes) ?? [];
  supportedActionTypes.sort();
  const minFinality = params.minFinality ?? "finalized";
  if (!FINALITY_SET.has(minFinality)) {
    throw new Error(`Unsupported finality level: ${minFinality}`);
  }
  const includeAddressBook = params.includeAddressBook ?? false;
  const includeMetadata = params.includeMetadata ?? false;
  const hasTraceSubscription = types.includes("trace");
  const hasAddressBoundSubscription = types.some((type) => type !== "trace");
  if (hasTraceSubscription && traceExternalHashNorms.length === 0) {
    throw new Error(
      'traceExternalHashNorms are required when subscribing to "trace" events'
    );
  }
  if (hasAddressBoundSubscription && addresses.length === 0) {
    throw new Error(
      "addresses are required when subscribing to non-trace streaming events"
    );
  }
  if (actionTypes.length > 0 && !types.includes("actions")) {
    throw new Error(
      'actionTypes can only be used with the "actions" event type'
    );
  }
  if (supportedActionTypes.length > 0 && !types.some((type) => type === "actions" || type === "trace")) {
    throw new Error(
      'supportedActionTypes can only be used with the "actions" or "trace" event types'
    );
  }
  return {
    addresses,
    traceExternalHashNorms,
    types,
    minFinality,
    includeAddressBook,
    includeMetadata,
    actionTypes,
    supportedActionTypes
  };
}
function sameSubscription(a, b) {
  return a.minFinality === b.minFinality && a.includeAddressBook === b.includeAddressBook && a.includeMetadata === b.includeMetadata && arraysEqual(a.types, b.types) && arraysEqual(a.addresses, b.addresses) && arraysEqual(a.traceExternalHashNorms, b.traceExternalHashNorms) && arraysEqual(a.actionTypes, b.actionTypes) && arraysEqual(a.supportedActionTypes, b.supportedActionTypes);
}
function arraysEqual(a, b) {
  if (a.length !== b.length) {
    return false;
  }
  for (let i = 0; i < a.length; i += 1) {
    if (a[i] !== b[i]) {
      return false;
    }
  }
  return true;
}
function serializeSubscription(resolved) {
  const result = {
    types: resolved.types
  };
  if (resolved.addresses.length > 0) {
    result.addresses = resolved.addresses;
  }
  if (resolved.traceExternalHashNorms.length > 0) {
    result.trace_external_hash_norms = resolved.traceExternalHashNorms;
  }
  if (resolved.minFinality !== "finalized") {
    result.min_finality = resolved.minFinality;
  }
  if (resolved.includeAddressBook) {
    result.include_address_book = true;
  }
  if (resolved.includeMetadata) {
    result.include_metadata = true;
  }
  if (resolved.actionTypes.length > 0) {
    result.action_types = resolved.actionTypes;
  }
  if (resolved.supportedActionTypes.length > 0) {
    result.supported_action_types = resolved.supportedActionTypes;
  }
  return result;
}

// src/client/streaming/TypedEventEmitter.ts
var TypedEventEmitter = class {
  #listeners = /* @__PURE__ */ new Map();
  on(event, handler) {
    const handlers = this.#getOrCreateHandlers(event);
    handlers.add(handler);
    return () => this.off(event, handler);
  }
  off(event, handler) {
    const handlers = this.#listeners.get(event);
    if (!handlers) {
      return;
    }
    handlers.delete(handler);
    if (handlers.size === 0) {
      this.#listeners.delete(event);
    }
  }
  emit(event, data) {
    const handlers = this.#listeners.get(event);
    if (!handlers || handlers.size === 0) {
      return;
    }
    for (const handler of [...handlers]) {
      try {
        handler(data);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
  removeAllListeners() {
    this.#listeners.clear();
  }
  #getOrCreateHandlers(event) {
    let handlers = this.#listeners.get(event);
    if (!handlers) {
      handlers = /* @__PURE__ */ new Set();
      this.#listeners.set(event, handlers);
    }
    return handlers;
  }
};

// src/client/streaming/AbstractStreamingClient.ts
var AbstractStreamingClient = class extends TypedEventEmitter {
  #url;
  #transport;
  #reconcilePromise = null;
  #applied = null;
  #desired = null;
  constructor(transport, url) {
    super();
    this.#transport = transport;
    this.#url = url;
  }
  subscribe(params) {
    const snapshot = resolveStreamingSubscription(params);
    if (this.ready && this.#applied && sameSubscription(this.#applied, snapshot)) {
      return Promise.resolve();
    }
    if (this.#desired && !this.#desired.waiter.settled && sameSubscription(this.#desired.snapshot, snapshot)) {
      return this.#desired.waiter.promise;
    }
    this.onSupersede();
    this.#desired?.waiter.reject(
      new StreamingSupersededError(
        "Streaming subscribe was superseded by a newer snapshot",
        this.ctx("subscribe")
      )
    );
    const desired = {
      snapshot,
      waiter: deferred()
    };
    this.#desired = desired;
    this.#reconcile();
    return desired.waiter.promise;
  }
  async close() {
    const error = new StreamingClosedError(
      "Streaming transport is closing",
      this.ctx("close")
    );
    this.#applied = null;
    this.#rejectDesiredWaiter(error);
    await this.closeTransport(error);
    await this.#reconcilePromise;
    this.removeAllListeners();
  }
  get ready() {
    return this.isSessionReady;
  }
  get url() {
    return this.#url;
  }
  onSupersede() {
  }
  ctx(phase, extra) {
    return {
      transport: this.#transport,
      endpoint: this.#url,
      phase,
      ...extra
    };
  }
  isSuperseded(desired) {
    return this.#desired !== desired;
  }
  #rejectDesiredWaiter(reason) {
    const desired = this.#desired;
    this.#desired = null;
    desired?.waiter.reject(reason);
  }
  #reconcile() {
    if (this.#reconcilePromise) {
      return;
    }
    this.#reconcilePromise = (async () => {
      try {
        while (this.#desired) {
          const target = this.#desired;
          if (this.ready && this.#applied && sameSubscription(this.#applied, target.snapshot)) {
            if (this.#desired !== target) {
              continue;
            }
            target.waiter.resolve();
            break;
          }
          let outcome;
          try {
            outcome = await this.applySubscription(target);
          } catch (error) {
            if (this.isSuperseded(target)) {
              continue;
            }
            throw error;
          }
          if (outcome === "replaced") {
            continue;
          }
          this.#applied = target.snapshot;
          if (this.#desired === target) {
            this.#desired = null;
            target.waiter.resolve();
            break;
          }
        }
      } catch (error) {
        this.#rejectDesiredWaiter(error);
      } finally {
        this.#reconcilePromise = null;
      }
    })();
  }
};

// src/client/streaming/protocol.ts
function expectRecord(value, fieldName) {
  if (!isRecord(value)) {
    throw new Error(`${fieldName} must be an object`);
  }
  return value;
}
function expectString(value, fieldName) {
  if (typeof value !== "string") {
    throw new Error(`${fieldName} must be a string`);
  }
  return value;
}
function expectFinality(value, fieldName) {
  const finality = expectString(value, fieldName);
  if (!FINALITY_SET.has(finality)) {
    throw new Error(`${fieldName} has unsupported value: ${finality}`);
  }
  return finality;
}
function expectNonPendingFinality(value, fieldName) {
  const finality = expectString(value, fieldName);
  if (!NON_PENDING_FINALITY_SET.has(finality)) {
    throw new Error(`${fieldName} has unsupported value: ${finality}`);
  }
  return finality;
}
function expectArray(value, fieldName) {
  if (!Array.isArray(value)) {
    throw new Error(`${fieldName} must be an array`);
  }
  return value;
}
function expectJsonObject(value, fieldName) {
  return expectRecord(value, fieldName);
}
function castJsonObjectArray(value, fieldName) {
  const arr = expectArray(value, fieldName);
  for (let i = 0; i < arr.length; i++) {
    if (!isRecord(arr[i])) {
      throw new Error(`${fieldName}[${i}] must be an object`);
    }
  }
  return arr;
}
function castJsonObjectRecord(value, fieldName) {
  const record = expectRecord(value, fieldName);
  for (const [key, entry] of Object.entries(record)) {
    if (!isRecord(entry)) {
      throw new Error(`${fieldName}.${key} must be an object`);
    }
  }
  return record;
}
function castOptionalJsonObjectRecord(value, fieldName) {
  return value === void 0 ? void 0 : castJsonObjectRecord(value, fieldName);
}
function parseAddressBook(value, fieldName) {
  return castOptionalJsonObjectRecord(
    value,
    fieldName
  );
}
function parseMetadata(value, fieldName) {
  return castOptionalJsonObjectRecord(
    value,
    fieldName
  );
}
function parseTraceCommonFields(payload, prefix) {
  return {
    finality: expectFinality(payload.finality, `${prefix}.finality`),
    trace_external_hash_norm: expectString(
      payload.trace_external_hash_norm,
      `${prefix}.trace_external_hash_norm`
    ),
    address_book: parseAddressBook(
      payload.address_book,
      `${prefix}.address_book`
    ),
    metadata: parseMetadata(payload.metadata, `${prefix}.metadata`)
  };
}
function parseTransactionsEvent(payload) {
  return {
    type: "transactions",
    ...parseTraceCommonFields(payload, "transactions"),
    transactions: castJsonObjectArray(
      payload.transactions,
      "transactions.transactions"
    )
  };
}
function parseActionsEvent(payload) {
  return {
    type: "actions",
    ...parseTraceCommonFields(payload, "actions"),
    actions: castJsonObjectArray(
      payload.actions,
      "actions.actions"
    )
  };
}
function parseTraceEvent(payload) {
  return {
    type: "trace",
    ...parseTraceCommonFields(payload, "trace"),
    trace: expectJsonObject(payload.trace, "trace.trace"),
    transactions: castJsonObjectRecord(
      payload.transactions,
      "trace.transactions"
    ),
    actions: payload.actions === void 0 ? void 0 : castJsonObjectArray(
      payload.actions,
      "trace.actions"
    )
  };
}
function parseAccountStateEvent(payload) {
  return {
    type: "account_state_change",
    finality: expectNonPendingFinality(
      payload.finality,
      "account_state_change.finality"
    ),
    account: expectString(payload.account, "account_state_change.account"),
    state: expectJsonObject(
      payload.state,
      "account_state_change.state"
    )
  };
}
function parseJettonsEvent(payload) {
  return {
    type: "jettons_change",
    finality: expectNonPendingFinality(
      payload.finality,
      "jettons_change.finality"
    ),
    jetton: expectJsonObject(
      payload.jetton,
      "jettons_change.jetton"
    ),
    address_book: parseAddressBook(
      payload.address_book,
      "jettons_change.address_book"
    ),
    metadata: parseMetadata(payload.metadata, "jettons_change.metadata")
  };
}
function parseTraceInvalidatedEvent(payload) {
  return {
    type: "trace_invalidated",
    trace_external_hash_norm: expectString(
      payload.trace_external_hash_norm,
      "trace_invalidated.trace_external_hash_norm"
    )
  };
}
function parseStreamingEvent(payload) {
  const type = expectString(payload.type, "streaming message.type");
  switch (type) {
    case "transactions":
      return parseTransactionsEvent(payload);
    case "actions":
      return parseActionsEvent(payload);
    case "trace":
      return parseTraceEvent(payload);
    case "account_state_change":
      return parseAccountStateEvent(payload);
    case "jettons_change":
      return parseJettonsEvent(payload);
    case "trace_invalidated":
      return parseTraceInvalidatedEvent(payload);
    default:
      throw new Error(`Unexpected streaming event type: ${type}`);
  }
}

// src/client/streaming/SseParser.ts
var MAX_BUFFER_SIZE = 4 * 1024 * 1024;
var SseParser = class {
  #buffer = "";
  #onEvent;
  #isStartOfStream = true;
  constructor(onEvent) {
    this.#onEvent = onEvent;
  }
  feed(chunk) {
    if (chunk.length === 0) {
      return;
    }
    if (this.#isStartOfStream) {
      this.#isStartOfStream = false;
      if (chunk.charCodeAt(0) === 65279) {
        chunk = chunk.slice(1);
      }
    }
    this.#buffer += chunk;
    if (this.#buffer.length > MAX_BUFFER_SIZE) {
      throw new Error(
        `SSE buffer exceeded ${MAX_BUFFER_SIZE} bytes without an event boundary`
      );
    }
    while (true) {
      const boundary = this.#findBoundary();
      if (boundary === null) {
        break;
      }
      const part = this.#normalizeChunk(
        this.#buffer.slice(0, boundary.index)
      );
      this.#buffer = this.#buffer.slice(boundary.index + boundary.length);
      this.#dispatch(part);
    }
  }
  // SSE spec requires dispatching trailing events without a blank-line delimiter.
  finish() {
    if (this.#buffer.length === 0) {
      return;
    }
    const part = this.#normalizeChunk(this.#buffer);
    this.#buffer = "";
    this.#dispatch(part);
  }
  #findBoundary() {
    const nnIndex = this.#buffer.indexOf("\n\n");
    if (this.#buffer.indexOf("\r") === -1) {
      return nnIndex === -1 ? null : { index: nnIndex, length: 2 };
    }
    const crlfIndex = this.#buffer.indexOf("\r\n\r\n");
    const crIndex = this.#buffer.indexOf("\r\r");
    let best = null;
    if (nnIndex !== -1) {
      best = { index: nnIndex, length: 2 };
    }
    if (crlfIndex !== -1 && (best === null || crlfIndex < best.index)) {
      best = { index: crlfIndex, length: 4 };
    }
    if (crIndex !== -1 && (best === null || crIndex < best.index)) {
      best = { index: crIndex, length: 2 };
    }
    return best;
  }
  #normalizeChunk(part) {
    return part.includes("\r") ? part.replace(/\r\n?/g, "\n") : part;
  }
  #dispatch(part) {
    if (!part) {
      return;
    }
    let event;
    let id;
    const dataLines = [];
    for (const line of part.split("\n")) {
      if (!line || line.startsWith(":")) {
        continue;
      }
      const colonIndex = line.indexOf(":");
      const field = colonIndex === -1 ? line : line.slice(0, colonIndex);
      let value = colonIndex === -1 ? "" : line.slice(colonIndex + 1);
      if (value.startsWith(" ")) {
        value = value.slice(1);
      }
      switch (field) {
        case "event":
          event = value;
          break;
        case "data":
          dataLines.push(value);
          break;
        case "id":
          if (!value.includes("\0")) {
            id = value;
          }
          break;
        default:
          break;
      }
    }
    if (dataLines.length === 0) {
      return;
    }
    this.#onEvent({
      event,
      data: dataLines.join("\n"),
      id
    });
  }
};

// src/client/streaming/TonSseClient.ts
var TonSseClient = class extends AbstractStreamingClient {
  #fetchFn;
  #headers;
  #session = null;
  #closingPromise = null;
  constructor(parameters) {
    super("sse", buildStreamingUrl("sse", parameters));
    this.#fetchFn = parameters.fetch ?? globalThis.fetch ?? (() => {
      throw new Error(
        "fetch is not available. Pass a fetch function via parameters or use Node 18+."
      );
    });
    this.#headers = {
      "Content-Type": "application/json",
      Accept: "text/event-stream",
      "Cache-Control": "no-cache",
      ...parameters.headers ?? {}
    };
  }
  get isSessionReady() {
    return this.#session?.isReady === true;
  }
  // SSE can't change subscription mid-stream, so abort any in-flight connection.
  onSupersede() {
    if (this.#session && !this.#session.isReady) {
      this.#session.abort.abort();
    }
  }
  applySubscription(desired) {
    return this.#startSession(desired);
  }
  async closeTransport(error) {
    await this.#closeActiveSession(error);
  }
  async #startSession(desired) {
    if (this.#session) {
      await this.#closeActiveSession(
        new StreamingClosedError(
          "Streaming subscription is being replaced",
          this.ctx("close")
        )
      );
    } else if (this.#closingPromise) {
      await this.#closingPromise;
    }
    const session = {
      abort: new AbortController(),
      subscribed: deferred(),
      closed: deferred(),
      isReady: false
    };
    this.#session = session;
    let response;
    try {
      response = await this.#fetchFn(this.url, {
        method: "POST",
        headers: this.#headers,
        body: JSON.stringify(serializeSubscription(desired.snapshot)),
        signal: session.abort.signal
      });
    } catch (error) {
      this.#teardown(session);
      if (isAbortError(error)) {
        if (this.isSuperseded(desired)) {
          return "replaced";
        }
        throw new StreamingClosedError(
          "Streaming transport is closing",
          this.ctx("close"),
          { cause: error }
        );
      }
      throw wrapStreamingError(
        error,
        this.ctx("connect"),
        "Streaming SSE connection failed"
      );
    }
    if (!response.ok) {
      this.#teardown(session);
      throw new StreamingError(
        `Streaming SSE connection failed: ${await describeHttpError(response)}`,
        this.ctx("connect", { rawPayload: response })
      );
    }
    if (!response.body || typeof response.body.getReader !== "function") {
      this.#teardown(session);
      throw new StreamingError(
        "SSE response does not expose a readable body",
        this.ctx("connect", { rawPayload: response })
      );
    }
    const body = response.body;
    if (this.#session !== session || this.isSuperseded(desired)) {
      void body.cancel();
      this.#teardown(session);
      return "replaced";
    }
    void this.#readStream(body, session);
    try {
      await session.subscribed.promise;
    } catch (error) {
      if (this.isSuperseded(desired)) {
        return "replaced";
      }
      throw error;
    }
    return "ready";
  }
  #closeActiveSession(error) {
    const session = this.#session;
    if (!session) {
      return this.#closingPromise ?? Promise.resolve();
    }
    const wasReady = session.isReady;
    this.#session = null;
    session.isReady = false;
    session.abort.abort();
    session.subscribed.reject(error);
    if (wasReady) {
      this.emit("close", void 0);
    }
    const closingPromise = session.closed.promise.finally(() => {
      if (this.#closingPromise === closingPromise) {
        this.#closingPromise = null;
      }
    });
    this.#closingPromise = closingPromise;
    return closingPromise;
  }
  #teardown(session) {
    if (this.#session === session) {
      this.#session = null;
    }
    session.closed.resolve();
  }
  #rejectOrEmitError(session, error) {
    if (!session.subscribed.settled) {
      session.subscribed.reject(error);
      session.abort.abort();
    } else {
      this.emit("error", error);
    }
  }
  async #readStream(body, session) {
    const parser = new SseParser((sseEvent) => {
      let payload;
      try {
        payload = JSON.parse(sseEvent.data);
      } catch (error) {
        this.#rejectOrEmitError(
          session,
          wrapStreamingError(
            error,
            this.ctx("message", { rawPayload: sseEvent.data }),
            "Failed to parse streaming SSE event"
          )
        );
        return;
      }
      if (!isRecord(payload)) {
        this.#rejectOrEmitError(
          session,
          new StreamingError(
            `Unexpected streaming SSE payload: ${describeUnexpectedMessage(payload)}`,
            this.ctx("message", { rawPayload: payload })
          )
        );
        return;
      }
      if (this.#session !== session) {
        return;
      }
      if (typeof payload.status === "string") {
        if (payload.status === "subscribed") {
          if (!session.isReady) {
            session.isReady = true;
            this.emit("open", void 0);
          }
          session.subscribed.resolve();
          return;
        }
        this.#rejectOrEmitError(
          session,
          payload.error !== void 0 ? wrapStreamingError(
            payload.error,
            this.ctx("subscription_confirmation", {
              rawPayload: payload
            }),
            `Streaming SSE request failed with status ${payload.status}`
          ) : new StreamingError(
            `Unexpected streaming SSE status message: ${describeUnexpectedMessage(payload)}`,
            this.ctx("subscription_confirmation", {
              rawPayload: payload
            })
          )
        );
        return;
      }
      try {
        const event = parseStreamingEvent(payload);
        this.emit(
          event.type,
          event
        );
      } catch (error) {
        this.#rejectOrEmitError(
          session,
          wrapStreamingError(
            error,
            this.ctx("notification", { rawPayload: payload }),
            "Invalid streaming SSE notification"
          )
        );
      }
    });
    const reader = body.getReader();
    let endedNormally = false;
    const decoder = new TextDecoder();
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) {
          break;
        }
        parser.feed(decoder.decode(value, { stream: true }));
      }
      const tail = decoder.decode();
      if (tail) {
        parser.feed(tail);
      }
      parser.finish();
      endedNormally = true;
    } catch (error) {
      if (!session.abort.signal.aborted && !isAbortError(error)) {
        this.#rejectOrEmitError(
          session,
          wrapStreamingError(
            error,
            this.ctx("stream"),
            "Streaming SSE stream terminated unexpectedly"
          )
        );
      }
    } finally {
      reader.releaseLock();
      if (this.#session !== session) {
        this.#teardown(session);
        return;
      }
      const wasReady = session.isReady;
      this.#session = null;
      session.isReady = false;
      const preReadyError = session.abort.signal.aborted ? new StreamingClosedError(
        "Streaming transport is closing",
        this.ctx("close")
      ) : new StreamingHandshakeError(
        "Streaming SSE connection closed before subscription confirmation",
        this.ctx("subscription_confirmation")
      );
      session.subscribed.reject(preReadyError);
      if (endedNormally && wasReady) {
        this.emit(
          "error",
          new StreamingClosedError(
            "Streaming SSE stream closed by server",
            this.ctx("stream")
          )
        );
      }
      if (wasReady) {
        this.emit("close", void 0);
      }
      this.#teardown(session);
    }
  }
};

// src/client/streaming/TonWsClient.ts
var textDecoder = new TextDecoder();
function parseWebSocketMessage(rawMessage) {
  if (typeof rawMessage === "string") {
    return JSON.parse(rawMessage);
  }
  if (rawMessage instanceof ArrayBuffer || ArrayBuffer.isView(rawMessage)) {
    return JSON.parse(textDecoder.decode(rawMessage));
  }
  throw new Error(`Unexpected WebSocket message type: ${typeof rawMessage}`);
}
var TonWsClient = class extends AbstractStreamingClient {
  #wsCtor;
  #wsHeaders;
  #hasCustomHeaders;
  #requestTimeoutMs;
  #pingIntervalMs;
  #session = null;
  constructor(parameters) {
    super("ws", buildStreamingUrl("ws", parameters));
    this.#wsHeaders = { ...parameters.headers ?? {} };
    this.#hasCustomHeaders = Object.keys(this.#wsHeaders).length > 0;
    const wsCtor = parameters.WebSocket ?? globalThis.WebSocket;
    if (!wsCtor) {
      throw new Error(
        "WebSocket is not available. Pass a WebSocket constructor via parameters."
      );
    }
    this.#wsCtor = wsCtor;
    if (this.#hasCustomHeaders && parameters.WebSocket === void 0) {
      throw new Error(
        "Custom headers require a custom WebSocket constructor. Browser WebSocket does not support arbitrary headers."
      );
    }
    this.#requestTimeoutMs = normalizeTimeoutMs(
      parameters.requestTimeoutMs,
      DEFAULT_REQUEST_TIMEOUT_MS,
      "parameters.requestTimeoutMs"
    );
    this.#pingIntervalMs = normalizeTimeoutMs(
      parameters.pingIntervalMs,
      DEFAULT_PING_INTERVAL_MS,
      "parameters.pingIntervalMs"
    );
  }
  get isSessionReady() {
    return this.#session?.isReady === true;
  }
  async applySubscription(desired) {
    await this.#ensureSocketOpen();
    await this.#sendSubscribe(desired.snapshot);
    return "ready";
  }
  async closeTransport(error) {
    await this.#closeActiveSession(error);
  }
  #closeActiveSession(error) {
    const session = this.#session;
    if (!session || session.state === "closing") {
      return session?.closed.promise ?? Promise.resolve();
    }
    const wasConnecting = session.state === "connecting";
    const wasSubscribed = session.isReady;
    session.state = "closing";
    session.isReady = false;
    this.#stopPing(session);
    this.#rejectAllPending(session, error);
    if (wasConnecting) {
      session.connected.reject(
        new StreamingClosedError(
          "WebSocket connection was closed",
          this.ctx("connect")
        )
      );
    }
    if (wasSubscribed) {
      this.emit("close", void 0);
    }
    try {
      session.socket.close();
    } catch {
    }
    this.#cleanupSession(session);
    return session.closed.promise;
  }
  async #ensureSocketOpen() {
    if (this.#session?.state === "open") {
      return;
    }
    if (this.#session?.state === "closing") {
      await this.#session.closed.promise;
    }
    if (this.#session?.state === "connecting") {
      return this.#session.connected.promise;
    }
    const ws = this.#hasCustomHeaders ? new this.#wsCtor(this.url, { headers: this.#wsHeaders }) : new this.#wsCtor(this.url);
    const session = {
      socket: ws,
      state: "connecting",
      connected: deferred(),
      closed: deferred(),
      isReady: false,
      pingInterval: null,
      pendingRequests: /* @__PURE__ */ new Map(),
      requestId: 0
    };
    this.#session = session;
    ws.onopen = () => {
      if (this.#session !== session || session.state !== "connecting") {
        return;
      }
      session.state = "open";
      session.connected.resolve();
    };
    ws.onerror = () => {
      if (this.#session !== session) {
        return;
      }
      const error = new StreamingError(
        "WebSocket connection error",
        this.ctx("connect")
      );
      if (session.state === "connecting") {
        this.#cleanupSession(session);
        session.connected.reject(error);
        try {
          ws.close();
        } catch {
        }
        return;
      }
      if (session.isReady) {
        this.emit("error", error);
      }
    };
    ws.onmessage = (event) => {
      if (this.#session !== session) {
        return;
      }
      try {
        this.#handleMessage(session, event.data);
      } catch (error) {
        this.emit(
          "error",
          wrapStreamingError(
            error,
            this.ctx("message", { rawPayload: event.data }),
            "Failed to handle streaming message"
          )
        );
      }
    };
    ws.onclose = () => {
      if (this.#session !== session) {
        return;
      }
      const wasConnecting = session.state === "connecting";
      const wasSubscribed = session.isReady;
      this.#cleanupSession(session);
      if (wasConnecting) {
        session.connected.reject(
          new StreamingHandshakeError(
            "WebSocket connection closed before opening",
            this.ctx("connect")
          )
        );
        return;
      }
      if (wasSubscribed) {
        this.emit(
          "error",
          new StreamingClosedError(
            "Streaming WebSocket stream closed by server",
            this.ctx("stream")
          )
        );
        this.emit("close", void 0);
      }
    };
    return session.connected.promise;
  }
  async #sendSubscribe(resolved) {
    const session = this.#session;
    if (!session || session.state !== "open") {
      throw new StreamingError(
        "WebSocket is not connected",
        this.ctx("send")
      );
    }
    const id = this.#nextRequestId(session);
    const response = await this.#sendRequest(session, id, {
      operation: "subscribe",
      id,
      ...serializeSubscription(resolved)
    });
    if (response.status !== "subscribed") {
      throw new StreamingError(
        `Subscription failed: ${describeUnexpectedMessage(response)}`,
        this.ctx("subscription_confirmation", {
          requestId: id,
          rawPayload: response
        })
      );
    }
    if (!session.isReady) {
      session.isReady = true;
      this.#startPing(session);
      this.emit("open", void 0);
    }
  }
  #nextRequestId(session) {
    session.requestId += 1;
    return String(session.requestId);
  }
  async #sendRequest(session, id, message) {
    if (session.state !== "open" || session.socket.readyState !== this.#wsCtor.OPEN) {
      throw new StreamingError(
        "WebSocket is not connected",
        this.ctx("send", { requestId: id, rawPayload: message })
      );
    }
    return new Promise((resolve, reject) => {
      const timeout = setTimeout(() => {
        if (!session.pendingRequests.has(id)) {
          return;
        }
        session.pendingRequests.delete(id);
        reject(
          new StreamingRequestTimeoutError(
            `Streaming request ${id} timed out`,
            this.ctx("request", { requestId: id })
          )
        );
      }, this.#requestTimeoutMs);
      session.pendingRequests.set(id, {
        resolve: (value) => {
          clearTimeout(timeout);
          resolve(value);
        },
        reject: (reason) => {
          clearTimeout(timeout);
          reject(reason);
        },
        timeout
      });
      try {
        session.socket.send(JSON.stringify(message));
      } catch (error) {
        session.pendingRequests.delete(id);
        clearTimeout(timeout);
        reject(
          wrapStreamingError(
            error,
            this.ctx("send", {
              requestId: id,
              rawPayload: message
            }),
            "Failed to send WebSocket message"
          )
        );
      }
    });
  }
  #rejectAllPending(session, error) {
    for (const pending of session.pendingRequests.values()) {
      clearTimeout(pending.timeout);
      pending.reject(error);
    }
    session.pendingRequests.clear();
  }
  #handleMessage(session, rawMessage) {
    const data = parseWebSocketMessage(rawMessage);
    if (this.#handleResponse(session, data)) {
      return;
    }
    if (this.#handleNotification(data)) {
      return;
    }
    this.emit(
      "error",
      new StreamingError(
        `Unexpected streaming message: ${describeUnexpectedMessage(data)}`,
        this.ctx("message", { rawPayload: data })
      )
    );
  }
  #handleResponse(session, payload) {
    if (!isRecord(payload) || payload.id === void 0) {
      return false;
    }
    const requestId = String(payload.id);
    const pending = session.pendingRequests.get(requestId);
    if (!pending) {
      return false;
    }
    session.pendingRequests.delete(requestId);
    if (payload.error !== void 0) {
      pending.reject(
        wrapStreamingError(
          payload.error,
          this.ctx("request", { requestId, rawPayload: payload }),
          `Streaming request ${requestId} failed`
        )
      );
    } else {
      pending.resolve(payload);
    }
    return true;
  }
  #handleNotification(payload) {
    if (!isRecord(payload) || typeof payload.type !== "string") {
      return false;
    }
    try {
      const event = parseStreamingEvent(payload);
      this.emit(event.type, event);
    } catch (error) {
      this.emit(
        "error",
        wrapStreamingError(
          error,
          this.ctx("notification", { rawPayload: payload }),
          "Invalid streaming notification"
        )
      );
    }
    return true;
  }
  #startPing(session) {
    if (this.#pingIntervalMs === 0) {
      return;
    }
    this.#stopPing(session);
    session.pingInterval = setInterval(() => {
      if (this.#session !== session) {
        return;
      }
      const id = this.#nextRequestId(session);
      void this.#sendRequest(session, id, {
        operation: "ping",
        id
      }).catch((error) => {
        this.#handleHeartbeatFailure(session, id, error);
      });
    }, this.#pingIntervalMs);
  }
  #handleHeartbeatFailure(session, requestId, reason) {
    if (this.#session !== session || session.state !== "open") {
      return;
    }
    const cause = reason instanceof Error ? reason : void 0;
    const message = cause?.message ?? "WebSocket heartbeat failed";
    const error = new StreamingError(
      message,
      this.ctx("heartbeat", { requestId }),
      { cause }
    );
    const wasSubscribed = session.isReady;
    this.emit("error", error);
    this.#cleanupSession(session);
    if (wasSubscribed) {
      this.emit("close", void 0);
    }
    try {
      session.socket.close();
    } catch {
    }
  }
  #stopPing(session) {
    if (!session.pingInterval) {
      return;
    }
    clearInterval(session.pingInterval);
    session.pingInterval = null;
  }
  #cleanupSession(session) {
    if (this.#session === session) {
      this.#session = null;
    }
    this.#stopPing(session);
    this.#rejectAllPending(
      session,
      new StreamingClosedError(
        "Connection closed",
        this.ctx("transport")
      )
    );
    session.socket.onopen = null;
    session.socket.onclose = null;
    session.socket.onmessage = null;
    session.socket.onerror = null;
    try {
      session.socket.terminate?.();
    } catch {
    }
    session.isReady = false;
    session.closed.resolve();
  }
};
export {
  StreamingClosedError,
  StreamingError,
  StreamingHandshakeError,
  StreamingRequestTimeoutError,
  StreamingSupersededError,
  TonSseClient,
  TonWsClient
};
