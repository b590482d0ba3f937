// @ton/walletkit's toncenter clients — TonCenterStreamingProvider (Streaming
// API v2), ApiClientToncenter (API v3, Emulate API v1) and
// getTransactionStatus (a sent message's status from its own TEP-467 hash)
// with what they run on — unchanged: ton-connect/kit packages/walletkit/src
// at commit ab6d00160908bc53b1e1a1f2b2ce6a2c62d3cece (walletkit
// 0.0.12-alpha.3), bundled by esbuild 0.25.12 from an entry that
// re-exports the three, run in packages/walletkit:
//   printf "export { TonCenterStreamingProvider } from './src/streaming/toncenter/index.ts';\n\
//   export { ApiClientToncenter } from './src/clients/toncenter/index.ts';\n\
//   export { getTransactionStatus } from './src/utils/toncenter/getTransactionStatus.ts';\n" |
//   esbuild --bundle --platform=node --format=esm --target=node20 \
//     --external:@ton/core --external:@ton/crypto --external:lru-cache \
//     --legal-comments=inline --sourcefile=walletkit-entry.ts --loader=ts
// The package is not in this machine's npm registry, and its published
// build is for bundlers (extensionless ESM imports), so the tests carry
// this bundle. Copyright (c) 2025 TonTech, MIT licence:
// tests/data/licenses/ton-connect__kit.txt. Do not edit: rebuild it.
// src/api/models/core/Network.ts
var Network = {
  /**
   * TON Mainnet (chain ID: -239)
   */
  mainnet: () => ({ chainId: "-239" }),
  /**
   * TON Testnet (chain ID: -3)
   */
  testnet: () => ({ chainId: "-3" }),
  /**
   * TON Tetra L2 chain (chain ID: 662387)
   */
  tetra: () => ({ chainId: "662387" }),
  /**
   * Custom network with specified chain ID
   */
  custom: (chainId) => ({ chainId })
};

// src/streaming/TonStreamingV2BaseProvider.ts
import { LRUCache as LRUCache2 } from "lru-cache";

// src/core/Logger.ts
function getDefaultLogLevel() {
  if (typeof process === "undefined" || typeof process?.env === "undefined") {
    return 3 /* ERROR */;
  }
  return process?.env?.WALLETKIT_LOG_LEVEL === "debug" ? 0 /* DEBUG */ : process?.env?.WALLETKIT_LOG_LEVEL === "none" ? 4 /* NONE */ : process?.env?.WALLETKIT_LOG_LEVEL === "info" ? 1 /* INFO */ : process?.env?.WALLETKIT_LOG_LEVEL === "warn" ? 2 /* WARN */ : process?.env?.WALLETKIT_LOG_LEVEL === "off" ? 4 /* NONE */ : 3 /* ERROR */;
}
var Logger = class _Logger {
  config;
  parent;
  static defaultConfig = {
    level: 1 /* INFO */,
    prefix: "TonWalletKit",
    enableTimestamp: true,
    enableStackTrace: false
  };
  constructor(config) {
    this.parent = config?.parent;
    this.config = { ..._Logger.defaultConfig, ...config };
    if (this.parent) {
      this.config = {
        ...this.parent.config,
        ...config,
        // Build hierarchical prefix
        prefix: this.buildHierarchicalPrefix(config?.prefix)
      };
    }
  }
  /**
   * Update logger configuration
   */
  configure(config) {
    this.config = { ...this.config, ...config };
  }
  /**
   * Create a child logger with a prefix that inherits from this logger
   */
  createChild(prefix, config) {
    return new _Logger({
      ...config,
      parent: this,
      prefix
    });
  }
  /**
   * Build hierarchical prefix by combining parent prefix with current prefix
   */
  buildHierarchicalPrefix(currentPrefix) {
    if (!this.parent || !currentPrefix) {
      return currentPrefix || this.parent?.config.prefix || "";
    }
    const parentPrefix = this.parent.config.prefix;
    if (!parentPrefix) {
      return currentPrefix;
    }
    return `${parentPrefix}:${currentPrefix}`;
  }
  /**
   * Get the full hierarchical prefix for this logger
   */
  getPrefix() {
    return this.config.prefix || "";
  }
  /**
   * Get the parent logger if it exists
   */
  getParent() {
    return this.parent;
  }
  /**
   * Log debug messages
   */
  debug(message, context) {
    if (this.config.level <= 0 /* DEBUG */) {
      this.log("DEBUG", message, context);
    }
  }
  /**
   * Log info messages
   */
  info(message, context) {
    if (this.config.level <= 1 /* INFO */) {
      this.log("INFO", message, context);
    }
  }
  /**
   * Log warning messages
   */
  warn(message, context) {
    if (this.config.level <= 2 /* WARN */) {
      this.log("WARN", message, context);
    }
  }
  /**
   * Log error messages
   */
  error(message, context) {
    if (this.config.level <= 3 /* ERROR */) {
      this.log("ERROR", message, context);
    }
  }
  /**
   * Internal logging method
   */
  log(level, message, context) {
    const timestamp = this.config.enableTimestamp ? (/* @__PURE__ */ new Date()).toISOString() : "";
    const prefix = this.config.prefix ? `[${this.config.prefix}]` : "";
    let logMessage = "";
    if (timestamp) {
      logMessage += `${timestamp} `;
    }
    if (prefix) {
      logMessage += `${prefix} `;
    }
    logMessage += `${level}: ${message}`;
    const logArgs = [logMessage];
    if (context && Object.keys(context).length > 0) {
      logArgs.push(context);
    }
    switch (level) {
      case "DEBUG":
        console.debug(...logArgs);
        break;
      case "INFO":
        console.info(...logArgs);
        break;
      case "WARN":
        console.warn(...logArgs);
        break;
      case "ERROR":
        console.error(...logArgs);
        if (this.config.enableStackTrace) {
          console.trace();
        }
        break;
    }
  }
};
var globalLogger = new Logger({
  level: getDefaultLogLevel(),
  enableStackTrace: true
});

// src/streaming/toncenter/guards/account.ts
var isAccountStateNotification = (msg) => {
  const m = msg;
  return typeof msg === "object" && msg !== null && m.type === "account_state_change" && typeof m.account === "string" && typeof m.state === "object" && m.state !== null && typeof m.state.balance === "string";
};

// src/streaming/toncenter/guards/jetton.ts
var isJettonsNotification = (msg) => {
  const m = msg;
  return typeof msg === "object" && msg !== null && m.type === "jettons_change" && typeof m.jetton === "object" && m.jetton !== null && typeof m.jetton.address === "string" && typeof m.jetton.owner === "string";
};

// src/streaming/toncenter/guards/transaction.ts
var isTransactionsNotification = (msg) => {
  const m = msg;
  return typeof msg === "object" && msg !== null && m.type === "transactions" && typeof m.trace_external_hash_norm === "string" && Array.isArray(m.transactions);
};
var isTraceInvalidatedNotification = (msg) => {
  const m = msg;
  return typeof msg === "object" && msg !== null && m.type === "trace_invalidated" && typeof m.trace_external_hash_norm === "string";
};

// src/utils/hex.ts
function asHex(data) {
  if (!isHex(data)) {
    throw new Error("Not a valid hex");
  }
  return data;
}
function isHex(data) {
  return /^0x[0-9a-fA-F]+$/.test(data) && data.length % 2 === 0;
}

// src/errors/codes.ts
var ERROR_CODES = {
  // Bridge Manager Errors (7000-7099)
  BRIDGE_NOT_INITIALIZED: 7e3,
  BRIDGE_CONNECTION_FAILED: 7001,
  BRIDGE_EVENT_PROCESSING_FAILED: 7002,
  BRIDGE_RESPONSE_SEND_FAILED: 7003,
  // Session Errors (7100-7199)
  SESSION_NOT_FOUND: 7100,
  SESSION_ID_REQUIRED: 7101,
  SESSION_CREATION_FAILED: 7102,
  SESSION_DOMAIN_REQUIRED: 7103,
  SESSION_RESTORATION_FAILED: 7104,
  // Event Store Errors (7200-7299)
  EVENT_STORE_NOT_INITIALIZED: 7200,
  EVENT_STORE_OPERATION_FAILED: 7201,
  // Storage Errors (7300-7399)
  STORAGE_READ_FAILED: 7300,
  STORAGE_WRITE_FAILED: 7301,
  // Wallet Errors (7400-7499)
  WALLET_NOT_FOUND: 7400,
  WALLET_REQUIRED: 7401,
  WALLET_INVALID: 7402,
  WALLET_CREATION_FAILED: 7403,
  WALLET_INITIALIZATION_FAILED: 7404,
  LEDGER_DEVICE_ERROR: 7405,
  // Request Processing Errors (7500-7599)
  INVALID_REQUEST_EVENT: 7500,
  REQUEST_PROCESSING_FAILED: 7501,
  RESPONSE_CREATION_FAILED: 7502,
  APPROVAL_FAILED: 7503,
  REJECTION_FAILED: 7504,
  // API Client Errors (7600-7699)
  API_CLIENT_ERROR: 7600,
  TON_CLIENT_INITIALIZATION_FAILED: 7601,
  API_REQUEST_FAILED: 7602,
  ACCOUNT_NOT_FOUND: 7603,
  // Jetton/NFT Errors (7700-7799)
  JETTONS_MANAGER_ERROR: 7700,
  NFT_MANAGER_ERROR: 7701,
  // Contract Errors (7800-7899)
  CONTRACT_DEPLOYMENT_FAILED: 7800,
  CONTRACT_EXECUTION_FAILED: 7801,
  CONTRACT_VALIDATION_FAILED: 7802,
  // Network Errors (7850-7899)
  NETWORK_NOT_CONFIGURED: 7850,
  // Generic Errors (7900-7999)
  UNKNOWN_ERROR: 7900,
  VALIDATION_ERROR: 7901,
  INITIALIZATION_ERROR: 7902,
  CONFIGURATION_ERROR: 7903,
  NETWORK_ERROR: 7904,
  UNKNOWN_EMULATION_ERROR: 7905,
  INVALID_CONFIG: 7906
};
function getErrorCodeName(code) {
  const entry = Object.entries(ERROR_CODES).find(([, value]) => value === code);
  return entry ? entry[0] : `UNKNOWN_CODE_${code}`;
}

// src/errors/WalletKitError.ts
var WalletKitError = class _WalletKitError extends Error {
  code;
  codeName;
  originalError;
  context;
  constructor(code, message, originalError, context) {
    const fullMessage = originalError ? `${message}: ${originalError.message}` : message;
    super(fullMessage);
    this.name = "WalletKitError";
    this.code = code;
    this.codeName = getErrorCodeName(code);
    this.originalError = originalError;
    this.context = context;
    if (Error.captureStackTrace) {
      Error.captureStackTrace(this, _WalletKitError);
    }
    if (originalError?.stack) {
      this.stack = `${this.stack}
Caused by: ${originalError.stack}`;
    }
  }
  /**
   * Create a WalletKitError from an unknown error
   */
  static fromError(code, message, error, context) {
    if (error instanceof Error) {
      return new _WalletKitError(code, message, error, context);
    }
    const errorMessage = error && typeof error === "object" && "message" in error ? String(error.message) : String(error);
    return new _WalletKitError(code, `${message}: ${errorMessage}`, void 0, { ...context, originalValue: error });
  }
  /**
   * Check if an error is a WalletKitError with a specific code
   */
  static isWalletKitError(error, code) {
    if (!(error instanceof _WalletKitError)) {
      return false;
    }
    if (code !== void 0) {
      return error.code === code;
    }
    return true;
  }
  /**
   * Serialize error to JSON
   */
  toJSON() {
    return {
      name: this.name,
      message: this.message,
      code: this.code,
      codeName: this.codeName,
      context: this.context,
      stack: this.stack,
      originalError: this.originalError ? {
        name: this.originalError.name,
        message: this.originalError.message,
        stack: this.originalError.stack
      } : void 0
    };
  }
};

// src/utils/base64.ts
function asBase64(data) {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) {
    throw new Error("Not a valid base64");
  }
  try {
    ParseBase64(data);
  } catch (_e) {
    throw new Error("Not a valid base64");
  }
  return data;
}
function Base64Normalize(data) {
  return data.replace(/\s+/g, "").replace(/-/g, "+").replace(/_/g, "/");
}
function Base64NormalizeUrl(data) {
  const normalized = Base64Normalize(data);
  const burl = normalized.replace(/\+/g, "-").replace(/\//g, "_").replace(/=/g, "");
  return burl;
}
function ParseBase64(data) {
  if (typeof atob === "undefined" && typeof Buffer === "undefined") {
    throw new WalletKitError(ERROR_CODES.CONFIGURATION_ERROR, "atob function is not available in this environment");
  }
  data = Base64Normalize(data);
  return typeof atob === "function" ? atob(data) : Buffer.from(data, "base64").toString("utf-8");
}
function Base64ToHex(data) {
  if (!data) throw new WalletKitError(ERROR_CODES.VALIDATION_ERROR, "Invalid hash: data is required");
  const binary = Base64ToUint8Array(data);
  if (!binary) throw new WalletKitError(ERROR_CODES.VALIDATION_ERROR, "Invalid hash: binary is required");
  return Uint8ArrayToHex(binary);
}
function Uint8ArrayToHex(data) {
  return asHex(
    `0x${[...data].map((b) => {
      if (b < 0 || b > 255)
        throw new WalletKitError(ERROR_CODES.VALIDATION_ERROR, "Invalid byte: expected 0-255", void 0, {
          actualByte: b
        });
      return b.toString(16).padStart(2, "0");
    }).join("")}`
  );
}
function Base64ToUint8Array(data) {
  if (!data) return null;
  const binary = ParseBase64(data);
  const len = binary.length;
  const bytes = new Uint8Array(len);
  for (let i = 0; i < len; i++) {
    bytes[i] = binary.charCodeAt(i);
  }
  return bytes;
}
function Base64ToBigInt(data) {
  if (!data || data === "") return 0n;
  const binary = ParseBase64(data);
  const len = binary.length;
  let result = 0n;
  for (let i = 0; i < len; i++) {
    result = (result << 8n) + BigInt(binary.charCodeAt(i));
  }
  return result;
}

// src/utils/address.ts
import { Address } from "@ton/core";
function asMaybeAddressFriendly(data) {
  try {
    return asAddressFriendly(data);
  } catch {
    return null;
  }
}
function asAddressFriendly(data) {
  if (data instanceof Address) {
    return data.toString();
  }
  try {
    if (data) return Address.parse(data).toString();
  } catch {
  }
  throw new Error(`Can not convert to AddressFriendly from "${data}"`);
}
function compareAddress(a, b) {
  if (!a || !b) return false;
  try {
    const addressA = typeof a === "string" ? Address.parse(a) : a;
    const addressB = typeof b === "string" ? Address.parse(b) : b;
    return addressA.equals(addressB);
  } catch {
    return typeof a === "string" && typeof b === "string" ? a.toLowerCase() === b.toLowerCase() : false;
  }
}

// src/utils/Signer.ts
import { keyPairFromSeed as keyPairFromSeed3 } from "@ton/crypto";

// src/utils/mnemonic.mts
import { mnemonicToWalletKey, mnemonicNew, keyPairFromSeed, deriveEd25519Path } from "@ton/crypto";

// src/utils/sign.ts
import { keyPairFromSeed as keyPairFromSeed2, sign } from "@ton/crypto";
var fakeKeyPair = keyPairFromSeed2(Buffer.alloc(32, 0));

// src/utils/cell.ts
import { beginCell } from "@ton/core";

// src/utils/delay.ts
function delay(ms) {
  return new Promise(
    (resolve) => setTimeout(() => {
      resolve();
    }, ms)
  );
}

// src/utils/retry.ts
async function CallForSuccess(toCall, attempts = 20, delayMs = 100, shouldRetry) {
  if (typeof toCall !== "function") {
    throw new Error("unknown input");
  }
  let i = 0;
  let lastError;
  while (i < attempts) {
    try {
      const res = await toCall();
      return res;
    } catch (err) {
      lastError = err;
      if (shouldRetry && !shouldRetry(err)) {
        throw err;
      }
      i++;
      await delay(delayMs);
    }
  }
  throw lastError;
}

// src/utils/signData/crc32.ts
/*! crc32.js (C) 2014-present SheetJS -- http://sheetjs.com */
var CRC32 = {};
CRC32.version = "1.2.3";
function signed_crc_table() {
  var c = 0, table = new Array(256);
  for (var n = 0; n != 256; ++n) {
    c = n;
    c = c & 1 ? -306674912 ^ c >>> 1 : c >>> 1;
    c = c & 1 ? -306674912 ^ c >>> 1 : c >>> 1;
    c = c & 1 ? -306674912 ^ c >>> 1 : c >>> 1;
    c = c & 1 ? -306674912 ^ c >>> 1 : c >>> 1;
    c = c & 1 ? -306674912 ^ c >>> 1 : c >>> 1;
    c = c & 1 ? -306674912 ^ c >>> 1 : c >>> 1;
    c = c & 1 ? -306674912 ^ c >>> 1 : c >>> 1;
    c = c & 1 ? -306674912 ^ c >>> 1 : c >>> 1;
    table[n] = c;
  }
  return typeof Int32Array !== "undefined" ? new Int32Array(table) : table;
}
var T0 = signed_crc_table();
function slice_by_16_tables(T) {
  var c = 0, v = 0, n = 0, table = typeof Int32Array !== "undefined" ? new Int32Array(4096) : new Array(4096);
  for (n = 0; n != 256; ++n) table[n] = T[n];
  for (n = 0; n != 256; ++n) {
    v = T[n];
    for (c = 256 + n; c < 4096; c += 256) v = table[c] = v >>> 8 ^ T[v & 255];
  }
  var out = [];
  for (n = 1; n != 16; ++n) out[n - 1] = typeof Int32Array !== "undefined" ? table.subarray(n * 256, n * 256 + 256) : table.slice(n * 256, n * 256 + 256);
  return out;
}
var TT = slice_by_16_tables(T0);
var T1 = TT[0];
var T2 = TT[1];
var T3 = TT[2];
var T4 = TT[3];
var T5 = TT[4];
var T6 = TT[5];
var T7 = TT[6];
var T8 = TT[7];
var T9 = TT[8];
var Ta = TT[9];
var Tb = TT[10];
var Tc = TT[11];
var Td = TT[12];
var Te = TT[13];
var Tf = TT[14];
var version = CRC32.version;

// src/utils/signData/hash.ts
import { beginCell as beginCell2, Cell } from "@ton/core";
import { sha256_sync } from "@ton/crypto";

// src/utils/signData/sign.ts
import { Address as Address2 } from "@ton/core";

// src/utils/tonProof.ts
import { sha256_sync as sha256_sync2 } from "@ton/crypto";

// src/utils/transactionPreview.ts
import { beginCell as beginCell4, Cell as Cell4, loadMessageRelaxed, storeMessageRelaxed } from "@ton/core";

// src/utils/computeMoneyFlow.ts
import { Cell as Cell3, Address as Address4 } from "@ton/core";

// src/utils/assetHelpers.ts
import { Address as Address3, beginCell as beginCell3 } from "@ton/core";
import { LRUCache } from "lru-cache";

// src/utils/tvmStack.ts
import { Cell as Cell2 } from "@ton/core";
import { TupleReader } from "@ton/core";

// src/utils/assetHelpers.ts
var JETTON_MASTER_BY_WALLET_CACHE_SIZE = 1e3;
var JETTON_MASTER_BY_WALLET_CACHE_TTL = 1e3 * 60 * 10;
var jettonMasterByWalletCache = new LRUCache({
  max: JETTON_MASTER_BY_WALLET_CACHE_SIZE,
  ttl: JETTON_MASTER_BY_WALLET_CACHE_TTL
});

// src/utils/transactionPreview.ts
var log = globalLogger.createChild("TransactionPreview");

// src/utils/walletId.ts
import { sha256_sync as sha256_sync3 } from "@ton/crypto";

// src/utils/messageBuilders.ts
import { Address as Address6, beginCell as beginCell5, Cell as TonCell } from "@ton/core";

// src/types/toncenter/parsers/opcodes.ts
var OpCode = /* @__PURE__ */ ((OpCode2) => {
  OpCode2["JettonTransfer"] = "0x0f8a7ea5";
  OpCode2["JettonInternalTransfer"] = "0x178d4519";
  OpCode2["JettonNotify"] = "0x7362d09c";
  OpCode2["JettonBurn"] = "0x595f07bc";
  OpCode2["JettonMint"] = "0x15";
  OpCode2["NftTransfer"] = "0x5fcc3d14";
  OpCode2["NftOwnershipAssigned"] = "0x05138d91";
  OpCode2["NftOwnerChanged"] = "0x7bdd97de";
  OpCode2["NftGetStaticData"] = "0x2fcb26a2";
  OpCode2["NftReportStaticData"] = "0x8b771735";
  OpCode2["Excess"] = "0xd53276db";
  OpCode2["WalletV4Transfer"] = "0x0";
  OpCode2["DnsResolve"] = "0x19f02441";
  OpCode2["DnsChangeRecord"] = "0x4eb1f0f9";
  OpCode2["DexSwap"] = "0x25938561";
  OpCode2["DexProvideLiquidity"] = "0xfcf9e58f";
  return OpCode2;
})(OpCode || {});
var OpCodeMapping = {
  ["0x0f8a7ea5" /* JettonTransfer */]: "jetton_transfer" /* JettonTransfer */,
  ["0x178d4519" /* JettonInternalTransfer */]: "jetton_internal_transfer" /* JettonInternalTransfer */,
  ["0x7362d09c" /* JettonNotify */]: "jetton_notify" /* JettonNotify */,
  ["0x595f07bc" /* JettonBurn */]: "jetton_burn" /* JettonBurn */,
  ["0x15" /* JettonMint */]: "jetton_mint" /* JettonMint */,
  ["0x5fcc3d14" /* NftTransfer */]: "nft_transfer" /* NftTransfer */,
  ["0x05138d91" /* NftOwnershipAssigned */]: "nft_ownership_assigned" /* NftOwnershipAssigned */,
  ["0x7bdd97de" /* NftOwnerChanged */]: "nft_owner_changed" /* NftOwnerChanged */,
  ["0x2fcb26a2" /* NftGetStaticData */]: "unknown" /* Unknown */,
  ["0x8b771735" /* NftReportStaticData */]: "unknown" /* Unknown */,
  ["0xd53276db" /* Excess */]: "excess" /* Excess */,
  ["0x0" /* WalletV4Transfer */]: "ton_transfer" /* TonTransfer */,
  ["0x19f02441" /* DnsResolve */]: "unknown" /* Unknown */,
  ["0x4eb1f0f9" /* DnsChangeRecord */]: "unknown" /* Unknown */,
  ["0x25938561" /* DexSwap */]: "unknown" /* Unknown */,
  ["0xfcf9e58f" /* DexProvideLiquidity */]: "unknown" /* Unknown */
};
var LegacyOpCodeMap = {
  "0x0f8a7ea5": "jetton_transfer",
  "0x178d4519": "jetton_internal_transfer",
  "0x7362d09c": "jetton_notify",
  "0x595f07bc": "jetton_burn",
  "0xd53276db": "excess",
  "0x5fcc3d14": "nft_transfer",
  "0x05138d91": "nft_ownership_assigned",
  "0x7bdd97de": "nft_owner_changed"
};
function resolveOpCode(opcode) {
  const normalized = opcode.toLowerCase();
  for (const [_key, value] of Object.entries(OpCode)) {
    if (value.toLowerCase() === normalized) {
      return OpCodeMapping[value];
    }
  }
  const legacy = LegacyOpCodeMap[normalized];
  if (legacy) {
    return legacy;
  }
  return "unknown" /* Unknown */;
}

// src/types/toncenter/parsers/body.ts
function isRecord(v) {
  return v !== null && typeof v === "object";
}
function getDecodedBody(msg) {
  if (!msg) return null;
  const mc = msg.message_content;
  if (isRecord(mc)) {
    const decoded = mc.decoded;
    return isRecord(decoded) ? decoded : null;
  }
  return null;
}
function getDecodedType(msg) {
  const decoded = getDecodedBody(msg);
  if (decoded) {
    const type = decoded["@type"];
    if (typeof type === "string") return type;
    const value = decoded["value"];
    if (isRecord(value) && typeof value["@type"] === "string") {
      return value["@type"];
    }
  }
  return null;
}
function getDecoded(msg) {
  return getDecodedBody(msg);
}
function extractOpFromBody(msg) {
  return getDecodedType(msg);
}
function matchOpWithMap(op, types, mapping) {
  if (!op) return "";
  const messageType = resolveOpCode(op);
  if (messageType !== "unknown" /* Unknown */) {
    const typeString = messageType;
    if (types.includes(typeString)) {
      return typeString;
    }
  }
  const normalized = mapping[op] ?? op;
  return types.includes(normalized) ? normalized : "";
}

// src/validation/address.ts
import { Address as Address5 } from "@ton/core";

// src/validation/transaction.ts
import { Cell as Cell5 } from "@ton/core";

// src/utils/toncenter/getTxOpcode.ts
var getTxOpcode = (tx) => {
  const msg = tx.in_msg;
  if (!msg) return null;
  return msg.opcode ?? null;
};

// src/utils/toncenter/createTraceTypeDetector.ts
var createTraceTypeDetector = (triggerOpcodes) => {
  return (transactions) => {
    for (const tx of Object.values(transactions)) {
      const opcode = getTxOpcode(tx);
      if (opcode && triggerOpcodes.has(opcode)) return true;
    }
    return false;
  };
};

// src/utils/toncenter/isTransactionFailed.ts
var isTransactionFailed = (tx) => {
  const desc = tx.description;
  if (!desc) return false;
  if (desc.aborted) return true;
  if (desc.compute_ph?.success === false) return true;
  if (desc.action?.success === false) return true;
  if (desc.action && desc.action.skipped_actions > 0) return true;
  return false;
};

// src/utils/toncenter/createFailureDetector.ts
var createFailureDetector = (nonCriticalOpcodes) => {
  return (transactions) => {
    for (const tx of Object.values(transactions)) {
      if (isTransactionFailed(tx)) {
        const opcode = getTxOpcode(tx);
        if (opcode && nonCriticalOpcodes.has(opcode)) {
          continue;
        }
        return true;
      }
    }
    return false;
  };
};

// src/utils/toncenter/isFailedTrace.ts
var KNOWN_TRACE_TYPES = [
  {
    triggerOpcodes: /* @__PURE__ */ new Set(["0x0f8a7ea5"]),
    // jetton_transfer initiates the flow
    safeToSkipOpcodes: /* @__PURE__ */ new Set([
      "0x7362d09c",
      // jetton_notify
      "0xd53276db"
      // excess
    ])
  }
];
var isFailedTrace = (tx) => {
  const trace = tx.traces?.[0];
  if (!trace) return false;
  const transactions = trace.transactions ?? {};
  if (Object.keys(transactions).length === 0) return false;
  for (const config of KNOWN_TRACE_TYPES) {
    const isMatch = createTraceTypeDetector(config.triggerOpcodes)(transactions);
    if (isMatch) {
      return createFailureDetector(config.safeToSkipOpcodes)(transactions);
    }
  }
  return createFailureDetector(/* @__PURE__ */ new Set())(transactions);
};

// src/utils/toncenter/parseTraceResponse.ts
var parseTraceResponse = (response) => {
  if (!response.traces || response.traces.length === 0) {
    return null;
  }
  const trace = response.traces[0];
  const traceInfo = trace.trace_info;
  const isEffectivelyCompleted = traceInfo.trace_state === "complete" || traceInfo.trace_state === "pending" && traceInfo.pending_messages === 0;
  let status = "pending";
  if (traceInfo.pending_messages === 0) {
    if (isFailedTrace(response)) {
      status = "failed";
    } else if (isEffectivelyCompleted) {
      status = "completed";
    }
  }
  return {
    status,
    totalMessages: traceInfo.messages,
    pendingMessages: traceInfo.pending_messages,
    onchainMessages: traceInfo.messages - traceInfo.pending_messages
  };
};

// src/utils/getNormalizedExtMessageHash.ts
import { Cell as Cell6, beginCell as beginCell6, loadMessage, storeMessage } from "@ton/core";
function getNormalizedExtMessageHash(boc) {
  const cell = Cell6.fromBase64(boc);
  const message = loadMessage(cell.beginParse());
  if (message.info.type !== "external-in") {
    throw new Error(`Message must be "external-in", got ${message.info.type}`);
  }
  const info = {
    ...message.info,
    src: void 0,
    importFee: 0n
  };
  const normalizedMessage = {
    ...message,
    init: null,
    info
  };
  const normalizedCell = beginCell6().store(storeMessage(normalizedMessage, { forceRef: true })).endCell();
  return {
    hash: `0x${normalizedCell.hash().toString("hex")}`,
    boc: normalizedCell.toBoc().toString("base64")
  };
}

// src/utils/toncenter/getTransactionStatus.ts
async function getTransactionStatus(client, params) {
  const hashToSearch = params.boc ? getNormalizedExtMessageHash(params.boc).hash : params.normalizedHash;
  if (!hashToSearch) {
    throw new Error("Either boc or normalizedHash must be provided");
  }
  try {
    const pendingResponse = await client.getPendingTrace({ externalMessageHash: [hashToSearch] });
    const pendingStatus = parseTraceResponse(pendingResponse);
    if (pendingStatus) return pendingStatus;
  } catch (_e) {
  }
  try {
    const traceResponse = await client.getTrace({ traceId: [hashToSearch] });
    const completedStatus = parseTraceResponse(traceResponse);
    if (completedStatus) return completedStatus;
  } catch (_e) {
  }
  return {
    status: "unknown",
    totalMessages: 0,
    pendingMessages: 0,
    onchainMessages: 0
  };
}

// src/utils/units.ts
function formatUnits(value, decimals) {
  let display = value.toString();
  const negative = display.startsWith("-");
  if (negative) display = display.slice(1);
  display = display.padStart(decimals, "0");
  let [integer, fraction] = [display.slice(0, display.length - decimals), display.slice(display.length - decimals)];
  fraction = fraction.replace(/(0+)$/, "");
  return `${negative ? "-" : ""}${integer || "0"}${fraction ? `.${fraction}` : ""}`;
}

// src/streaming/toncenter/mappers/map-balance.ts
var mapBalance = (notification) => {
  return {
    type: "balance",
    address: asAddressFriendly(notification.account),
    rawBalance: notification.state.balance,
    balance: formatUnits(notification.state.balance, 9),
    status: notification.finality
  };
};

// src/types/toncenter/v3/AddressBookRowV3.ts
function toAddressBookEntry(row) {
  return {
    domain: row.domain ?? void 0,
    address: asAddressFriendly(row.user_friendly),
    interfaces: row.interfaces ?? []
  };
}
function toAddressBook(addressBookV3) {
  const addressBook = {};
  for (const [_, row] of Object.entries(addressBookV3)) {
    const userFriendlyAddress = asAddressFriendly(row.user_friendly);
    addressBook[userFriendlyAddress] = toAddressBookEntry(row);
  }
  return addressBook;
}

// src/clients/toncenter/utils.ts
import { Address as Address7 } from "@ton/core";
var padBase64 = (data) => {
  return data.padEnd(data.length + (4 - data.length % 4), "=");
};
var parseMsgSizeCount = (value) => {
  if (value === void 0) return void 0;
  const num = Number(value);
  if (!Number.isFinite(num)) return void 0;
  return Math.trunc(num);
};
var prepareAddress = (address) => {
  if (address instanceof Address7) {
    address = address.toString();
  }
  return address;
};
var parseInternalTransactionId = (data) => {
  if (data.hash !== "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=") {
    return {
      lt: data.lt,
      hash: Base64ToHex(data.hash)
    };
  }
  return null;
};

// src/streaming/toncenter/mappers/map-transaction.ts
var toAccountStatus = (status) => {
  if (!status) return void 0;
  if (status === "active") return { type: "active" };
  if (status === "frozen") return { type: "frozen" };
  if (status === "uninit") return { type: "uninit" };
  return { type: "unknown", value: status };
};
var toAccountState = (state) => {
  return {
    hash: Base64ToHex(state.hash),
    balance: state.balance ?? "0",
    extraCurrencies: state.extra_currencies ?? void 0,
    accountStatus: toAccountStatus(state.account_status),
    frozenHash: state.frozen_hash ? Base64ToHex(state.frozen_hash) : void 0,
    dataHash: state.data_hash ? Base64ToHex(state.data_hash) : void 0,
    codeHash: state.code_hash ? Base64ToHex(state.code_hash) : void 0
  };
};
var toTransactionBlockRef = (ref) => {
  return {
    workchain: ref.workchain,
    shard: ref.shard,
    seqno: ref.seqno
  };
};
var toTransactionMessage = (msg) => {
  return {
    hash: Base64ToHex(msg.hash),
    normalizedHash: msg.hash_norm ? Base64ToHex(msg.hash_norm) : void 0,
    source: asMaybeAddressFriendly(msg.source) ?? void 0,
    destination: asMaybeAddressFriendly(msg.destination) ?? void 0,
    value: msg.value ?? void 0,
    valueExtraCurrencies: msg.value_extra_currencies,
    fwdFee: msg.fwd_fee ?? void 0,
    ihrFee: msg.ihr_fee ?? void 0,
    creationLogicalTime: msg.created_lt ?? void 0,
    createdAt: msg.created_at ? Number(msg.created_at) : void 0,
    opcode: msg.opcode ?? void 0,
    ihrDisabled: msg.ihr_disabled ?? void 0,
    isBounce: msg.bounce ?? void 0,
    isBounced: msg.bounced ?? void 0,
    importFee: msg.import_fee ?? void 0,
    messageContent: msg.message_content ? {
      hash: msg.message_content.hash ? Base64ToHex(msg.message_content.hash) : void 0,
      decoded: msg.message_content.decoded ?? void 0
    } : void 0
  };
};
var toComputePhase = (desc) => {
  const computePh = desc.compute_ph;
  const isSkipped = "skipped" in computePh && computePh.skipped;
  if (isSkipped) {
    return { isSkipped: true, isSuccess: false };
  }
  const full = computePh;
  return {
    isSkipped: false,
    isSuccess: full.success,
    isMessageStateUsed: full.msg_state_used,
    isAccountActivated: full.account_activated,
    gasFees: full.gas_fees,
    gasUsed: full.gas_used,
    gasLimit: full.gas_limit,
    gasCredit: full.gas_credit,
    mode: full.mode,
    exitCode: full.exit_code,
    vmStepsNumber: full.vm_steps,
    vmInitStateHash: full.vm_init_state_hash ? Base64ToHex(full.vm_init_state_hash) : void 0,
    vmFinalStateHash: full.vm_final_state_hash ? Base64ToHex(full.vm_final_state_hash) : void 0
  };
};
var toTransactionDescription = (desc) => {
  const action = desc.action;
  return {
    type: desc.type,
    isAborted: desc.aborted,
    isDestroyed: desc.destroyed,
    isCreditFirst: desc.credit_first,
    isTock: desc.is_tock,
    isInstalled: desc.installed,
    storagePhase: desc.storage_ph ? {
      storageFeesCollected: desc.storage_ph.storage_fees_collected,
      statusChange: desc.storage_ph.status_change
    } : void 0,
    creditPhase: desc.credit_ph ? { credit: desc.credit_ph.credit } : void 0,
    computePhase: toComputePhase(desc),
    action: action ? {
      isSuccess: action.success,
      isValid: action.valid,
      hasNoFunds: action.no_funds,
      statusChange: action.status_change,
      totalForwardingFees: action.total_fwd_fees,
      totalActionFees: action.total_action_fees,
      resultCode: action.result_code,
      totalActionsNumber: action.tot_actions,
      specActionsNumber: action.spec_actions,
      skippedActionsNumber: action.skipped_actions,
      messagesCreatedNumber: action.msgs_created,
      actionListHash: action.action_list_hash ? Base64ToHex(action.action_list_hash) : void 0,
      totalMessagesSize: action.tot_msg_size ? {
        cells: parseMsgSizeCount(action.tot_msg_size.cells),
        bits: parseMsgSizeCount(action.tot_msg_size.bits)
      } : void 0
    } : void 0
  };
};
var toStreamingTransaction = (raw, traceExternalHashNorm) => {
  return {
    account: asAddressFriendly(raw.account),
    hash: Base64ToHex(raw.hash),
    logicalTime: raw.lt,
    now: raw.now,
    mcBlockSeqno: raw.mc_block_seqno,
    traceExternalHash: Base64ToHex(traceExternalHashNorm),
    traceId: raw.trace_id,
    previousTransactionHash: raw.prev_trans_hash ? Base64ToHex(raw.prev_trans_hash) : void 0,
    previousTransactionLogicalTime: raw.prev_trans_lt ?? void 0,
    origStatus: toAccountStatus(raw.orig_status),
    endStatus: toAccountStatus(raw.end_status),
    totalFees: raw.total_fees,
    totalFeesExtraCurrencies: raw.total_fees_extra_currencies ?? {},
    blockRef: raw.block_ref ? toTransactionBlockRef(raw.block_ref) : void 0,
    inMessage: raw.in_msg ? toTransactionMessage(raw.in_msg) : void 0,
    outMessages: raw.out_msgs?.map(toTransactionMessage) ?? [],
    accountStateBefore: toAccountState(raw.account_state_before),
    accountStateAfter: toAccountState(raw.account_state_after),
    description: toTransactionDescription(raw.description),
    isEmulated: raw.emulated ?? false
  };
};

// src/streaming/toncenter/mappers/map-transactions.ts
var mapTransactions = (account, notification) => {
  return {
    type: "transactions",
    address: asAddressFriendly(account),
    traceHash: Base64ToHex(notification.trace_external_hash_norm),
    transactions: notification.transactions.filter((tx) => compareAddress(tx.account, account)).map((tx) => toStreamingTransaction(tx, notification.trace_external_hash_norm)),
    addressBook: notification.address_book ? toAddressBook(notification.address_book) : void 0,
    metadata: notification.metadata,
    status: notification.finality
  };
};

// src/streaming/toncenter/mappers/map-jettons.ts
var mapJettons = (notification) => {
  const { address, owner, jetton: masterJetton, balance } = notification.jetton;
  const meta = notification.metadata?.[masterJetton];
  const tokenInfo = meta?.token_info?.find((t) => t.type === "jetton_masters");
  const decimalsStr = tokenInfo?.extra?.decimals;
  const decimals = typeof decimalsStr === "string" ? parseInt(decimalsStr, 10) : void 0;
  let formattedBalance;
  if (decimals !== void 0 && !isNaN(decimals) && balance) {
    formattedBalance = formatUnits(balance, decimals);
  }
  return {
    type: "jettons",
    masterAddress: asAddressFriendly(masterJetton),
    walletAddress: asAddressFriendly(address),
    ownerAddress: asAddressFriendly(owner),
    rawBalance: balance,
    decimals,
    balance: formattedBalance,
    status: notification.finality
  };
};

// src/streaming/WebsocketStreamingProvider.ts
var log2 = globalLogger.createChild("WebsocketStreamingProvider");
var WebsocketStreamingProvider = class _WebsocketStreamingProvider {
  type = "streaming";
  ws = null;
  isConnected = false;
  balanceCallbacks = /* @__PURE__ */ new Map();
  transactionCallbacks = /* @__PURE__ */ new Map();
  jettonCallbacks = /* @__PURE__ */ new Map();
  connectionChangeCallbacks = /* @__PURE__ */ new Set();
  reconnectAttempts = 0;
  static RECONNECT_DELAYS = [500, 1e3, 2e3, 4e3, 8e3];
  pingTimeout = null;
  reconnectTimeout = null;
  closeCheckTimeout = null;
  getActiveWatchers() {
    const result = /* @__PURE__ */ new Map();
    if (this.balanceCallbacks.size > 0) result.set("balance", new Set(this.balanceCallbacks.keys()));
    if (this.transactionCallbacks.size > 0) result.set("transactions", new Set(this.transactionCallbacks.keys()));
    if (this.jettonCallbacks.size > 0) result.set("jettons", new Set(this.jettonCallbacks.keys()));
    return result;
  }
  hasActiveSubscriptions() {
    return this.balanceCallbacks.size > 0 || this.transactionCallbacks.size > 0 || this.jettonCallbacks.size > 0;
  }
  isWatching(type, address) {
    switch (type) {
      case "balance":
        return this.balanceCallbacks.has(address);
      case "transactions":
        return this.transactionCallbacks.has(address);
      case "jettons":
        return this.jettonCallbacks.has(address);
      default:
        return false;
    }
  }
  emitBalance(address, update) {
    this.balanceCallbacks.get(address)?.forEach((cb) => cb(update));
  }
  emitTransactions(address, update) {
    this.transactionCallbacks.get(address)?.forEach((cb) => cb(update));
  }
  emitJettons(ownerAddress, update) {
    this.jettonCallbacks.get(ownerAddress)?.forEach((cb) => cb(update));
  }
  addCallback(map, address, callback, watchType) {
    let set = map.get(address);
    const isFirst = !set || set.size === 0;
    if (!set) {
      set = /* @__PURE__ */ new Set();
      map.set(address, set);
    }
    set.add(callback);
    if (isFirst) {
      this.onWatch(watchType, address);
      this.ensureConnected();
    }
    return () => {
      set.delete(callback);
      if (set.size === 0) {
        map.delete(address);
        this.onUnwatch(watchType, address);
        this.checkClose();
      }
    };
  }
  watchBalance(address, onChange) {
    return this.addCallback(this.balanceCallbacks, asAddressFriendly(address), onChange, "balance");
  }
  watchTransactions(address, onChange) {
    return this.addCallback(this.transactionCallbacks, asAddressFriendly(address), onChange, "transactions");
  }
  watchJettons(address, onChange) {
    return this.addCallback(this.jettonCallbacks, asAddressFriendly(address), onChange, "jettons");
  }
  disconnect() {
    if (this.closeCheckTimeout) {
      clearTimeout(this.closeCheckTimeout);
      this.closeCheckTimeout = null;
    }
    this.stopReconnect();
    this.stopPing();
    this.reconnectAttempts = 0;
    const wasConnected = this.isConnected;
    if (this.ws) {
      this.ws.onclose = null;
      this.ws.close();
      this.ws = null;
    }
    this.isConnected = false;
    if (wasConnected) {
      this.emitConnectionChange(false);
    }
    log2.info("WebsocketStreamingProvider disconnected");
  }
  checkClose() {
    if (this.closeCheckTimeout) {
      clearTimeout(this.closeCheckTimeout);
    }
    this.closeCheckTimeout = setTimeout(() => {
      this.closeCheckTimeout = null;
      if (!this.hasActiveSubscriptions()) {
        this.disconnect();
      }
    }, 500);
  }
  connect() {
    this.ensureConnected();
  }
  onConnectionChange(callback) {
    this.connectionChangeCallbacks.add(callback);
    return () => {
      this.connectionChangeCallbacks.delete(callback);
    };
  }
  emitConnectionChange(connected) {
    this.connectionChangeCallbacks.forEach((cb) => cb(connected));
  }
  ensureConnected() {
    if (this.isConnected || this.ws?.readyState === WebSocket.CONNECTING) {
      return;
    }
    this.openConnection();
  }
  openConnection() {
    this.stopReconnect();
    const url = this.getUrl();
    log2.info("Connecting to WebSocket", { url: url.replace(/api_key=[^&]+/, "api_key=***") });
    try {
      this.ws = new WebSocket(url);
    } catch (error) {
      log2.error("WebSocket creation failed", { error });
      this.scheduleReconnect();
      return;
    }
    this.ws.onopen = () => {
      log2.info("WebSocket connected");
      this.isConnected = true;
      this.reconnectAttempts = 0;
      this.fullResync();
      this.startPing();
      this.emitConnectionChange(true);
    };
    this.ws.onmessage = this.onMessage.bind(this);
    this.ws.onerror = (error) => {
      log2.error("WebSocket error", { readyState: this.ws?.readyState, error });
    };
    this.ws.onclose = () => {
      log2.info("WebSocket closed");
      this.isConnected = false;
      this.stopPing();
      this.ws = null;
      this.emitConnectionChange(false);
      if (this.hasActiveSubscriptions()) {
        this.scheduleReconnect();
      }
    };
  }
  send(payload) {
    if (this.ws?.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(payload));
    }
  }
  startPing() {
    this.stopPing();
    const schedulePing = () => {
      this.pingTimeout = setTimeout(() => {
        if (this.ws?.readyState === WebSocket.OPEN) {
          const message = this.getPingMessage();
          if (message) {
            this.send(message);
          }
        }
        schedulePing();
      }, 1e4);
    };
    schedulePing();
  }
  stopPing() {
    if (this.pingTimeout) {
      clearTimeout(this.pingTimeout);
      this.pingTimeout = null;
    }
  }
  scheduleReconnect() {
    if (this.reconnectTimeout) return;
    this.reconnectAttempts++;
    const delays = _WebsocketStreamingProvider.RECONNECT_DELAYS;
    const delayMs = delays[Math.min(this.reconnectAttempts - 1, delays.length - 1)];
    log2.info(`Scheduling reconnect in ${delayMs}ms (attempt ${this.reconnectAttempts})`);
    this.reconnectTimeout = setTimeout(() => {
      this.reconnectTimeout = null;
      this.openConnection();
    }, delayMs);
  }
  stopReconnect() {
    if (this.reconnectTimeout) {
      clearTimeout(this.reconnectTimeout);
      this.reconnectTimeout = null;
    }
  }
  /**
   * Override to determine the ping payload sent every 10s.
   * If returns null, no ping is sent.
   */
  getPingMessage() {
    return null;
  }
};

// src/streaming/TonStreamingV2BaseProvider.ts
var log3 = globalLogger.createChild("TonStreamingV2");
var STREAMING_V2_WS_PATH = "/api/streaming/v2/ws";
var TonStreamingV2BaseProvider = class extends WebsocketStreamingProvider {
  providerId;
  baseUrl;
  authSecret;
  authQueryParam;
  requestId = 0;
  lastAddresses = /* @__PURE__ */ new Set();
  syncTimer = null;
  traceCache = new LRUCache2({ max: 1e4 });
  constructor(_ctx, options) {
    super();
    this.providerId = options.providerId;
    this.baseUrl = options.baseUrl;
    this.authSecret = options.authSecret;
    this.authQueryParam = options.authQueryParam;
  }
  disconnect() {
    if (this.syncTimer) {
      clearTimeout(this.syncTimer);
      this.syncTimer = null;
    }
    this.traceCache.clear();
    this.lastAddresses.clear();
    super.disconnect();
  }
  getUrl() {
    let url = this.baseUrl;
    if (this.authSecret) {
      const separator = url.includes("?") ? "&" : "?";
      url += `${separator}${this.authQueryParam}=${encodeURIComponent(this.authSecret)}`;
    }
    return url;
  }
  getPingMessage() {
    return { operation: "ping", id: `ping-${Date.now()}` };
  }
  onWatch(type, id) {
    log3.info("onWatch triggered", { type, id, isConnected: this.isConnected, readyState: this.ws?.readyState });
    this.requestSync();
  }
  onUnwatch(type, id) {
    log3.info("onUnwatch triggered", { type, id, isConnected: this.isConnected, readyState: this.ws?.readyState });
    this.requestSync();
  }
  fullResync() {
    if (this.syncTimer) {
      clearTimeout(this.syncTimer);
      this.syncTimer = null;
    }
    log3.info("fullResync triggered", { isConnected: this.isConnected, readyState: this.ws?.readyState });
    if (!this.isConnected || this.ws?.readyState !== WebSocket.OPEN) {
      return;
    }
    const watched = this.getActiveWatchers();
    const addresses = /* @__PURE__ */ new Set();
    const types = /* @__PURE__ */ new Set();
    watched.forEach((ids, type) => {
      const streamType = this.mapWatchTypeToStreamEvent(type);
      if (!streamType) return;
      types.add(streamType);
      ids.forEach((id) => addresses.add(id));
    });
    if (addresses.size === 0) {
      if (this.lastAddresses.size > 0) {
        const msgId2 = `clear-${Date.now()}-${++this.requestId}`;
        this.send({
          operation: "unsubscribe",
          id: msgId2,
          addresses: Array.from(this.lastAddresses)
        });
        this.lastAddresses.clear();
        log3.info("Cleared all subscriptions", { msgId: msgId2 });
      }
      return;
    }
    const request = {
      types: Array.from(types),
      addresses: Array.from(addresses),
      min_finality: "pending",
      include_metadata: true
    };
    const msgId = `sync-${Date.now()}-${++this.requestId}`;
    this.send({
      operation: "subscribe",
      id: msgId,
      ...request
    });
    this.lastAddresses = addresses;
    log3.info("Sent monolithic subscription", {
      msgId,
      types: Array.from(types),
      addressCount: addresses.size
    });
  }
  onMessage(event) {
    try {
      const msg = JSON.parse(event.data);
      const m = msg;
      log3.debug("Streaming v2 WS received message:", m);
      if (m.status === "subscribed" || m.status === "pong") {
        return;
      }
      if (isAccountStateNotification(msg)) {
        const update = mapBalance(msg);
        if (this.isWatching("balance", update.address)) {
          this.emitBalance(update.address, update);
        }
        return;
      }
      if (isTraceInvalidatedNotification(msg)) {
        log3.debug("Trace invalidated", { hash: msg.trace_external_hash_norm });
        const entry = this.traceCache.get(msg.trace_external_hash_norm);
        if (entry) {
          entry.accounts.forEach((account) => {
            const friendly = asAddressFriendly(account);
            if (this.isWatching("transactions", friendly)) {
              this.emitTransactions(friendly, {
                type: "transactions",
                address: friendly,
                transactions: [],
                traceHash: Base64ToHex(msg.trace_external_hash_norm),
                status: "invalidated"
              });
            }
          });
          this.traceCache.delete(msg.trace_external_hash_norm);
        }
        return;
      }
      if (isTransactionsNotification(msg)) {
        const finalityScore = this.getFinalityScore(msg.finality);
        const entry = this.traceCache.get(msg.trace_external_hash_norm);
        if (entry && finalityScore < entry.score) {
          log3.debug("Ignoring transactions notification due to lower finality", {
            hash: msg.trace_external_hash_norm,
            msgFinality: msg.finality,
            cachedScore: entry.score
          });
          return;
        }
        const traceEntry = entry ?? { score: finalityScore, accounts: /* @__PURE__ */ new Set() };
        traceEntry.score = finalityScore;
        if (!entry) {
          this.traceCache.set(msg.trace_external_hash_norm, traceEntry);
        }
        const uniqueAccounts = /* @__PURE__ */ new Set();
        msg.transactions.forEach((tx) => {
          if (uniqueAccounts.has(tx.account)) return;
          uniqueAccounts.add(tx.account);
          traceEntry.accounts.add(tx.account);
          const friendly = asAddressFriendly(tx.account);
          if (this.isWatching("transactions", friendly)) {
            this.emitTransactions(friendly, mapTransactions(tx.account, msg));
          }
        });
        return;
      }
      if (isJettonsNotification(msg)) {
        const update = mapJettons(msg);
        if (this.isWatching("jettons", update.ownerAddress)) {
          this.emitJettons(update.ownerAddress, update);
        }
        return;
      }
    } catch (err) {
      log3.warn("Failed to parse WebSocket message", { error: err });
    }
  }
  requestSync() {
    if (this.syncTimer) {
      clearTimeout(this.syncTimer);
    }
    this.syncTimer = setTimeout(() => {
      this.syncTimer = null;
      this.fullResync();
    }, 50);
  }
  mapWatchTypeToStreamEvent(type) {
    switch (type) {
      case "balance":
        return "account_state_change";
      case "transactions":
        return "transactions";
      case "jettons":
        return "jettons_change";
      default:
        return null;
    }
  }
  getFinalityScore(finality) {
    switch (finality) {
      case "pending":
        return 0;
      case "confirmed":
        return 1;
      case "finalized":
        return 2;
      default:
        return -1;
    }
  }
};

// src/streaming/toncenter/provider.ts
var TonCenterStreamingProvider = class extends TonStreamingV2BaseProvider {
  network;
  constructor(_ctx, config) {
    const base = config.endpoint ?? (config.network.chainId === Network.mainnet().chainId ? "wss://toncenter.com" : "wss://testnet.toncenter.com");
    const baseUrl = base.replace(/\/$/, "").replace(/^https?/, "wss") + STREAMING_V2_WS_PATH;
    super(_ctx, {
      providerId: `toncenter-${config.network.chainId}`,
      baseUrl,
      authQueryParam: "api_key",
      authSecret: config.apiKey
    });
    this.network = config.network;
  }
};

// src/clients/toncenter/ApiClientToncenter.ts
import { Address as Address8 } from "@ton/core";

// src/clients/toncenter/types/v3/NFTCollectionV3.ts
function toNftCollection(address, data) {
  if (!data) {
    if (address) {
      return { address: asAddressFriendly(address) };
    } else {
      return null;
    }
  }
  const out = {
    address: asAddressFriendly(data.address),
    codeHash: data.code_hash ? Base64ToHex(data.code_hash) : void 0,
    dataHash: data.data_hash ? Base64ToHex(data.data_hash) : void 0,
    nextItemIndex: data.next_item_index.toString(),
    ownerAddress: asMaybeAddressFriendly(data.owner_address) ?? void 0
  };
  if (data.collection_content) out.extra = data.collection_content;
  return out;
}
function tokenMetaToNftCollection(address, data) {
  if (!data) {
    return { address: asAddressFriendly(address) };
  }
  const image = data?.extra?.cover_image ?? data?.image;
  const out = {
    address: asAddressFriendly(address),
    name: data.name,
    description: data.description,
    image: {
      url: image,
      smallUrl: data?.extra?._image_small,
      mediumUrl: data?.extra?._image_medium,
      largeUrl: data?.extra?._image_big
    },
    extra: data.extra
  };
  return out;
}

// src/clients/toncenter/types/v3/NftItemV3.ts
function toNftItem(data) {
  const out = {
    address: asAddressFriendly(data.address),
    index: data.index.toString(),
    collection: toNftCollection(data.collection_address, data.collection) ?? void 0,
    auctionContractAddress: asMaybeAddressFriendly(data.auction_contract_address) ?? void 0,
    ownerAddress: asMaybeAddressFriendly(data.owner_address) ?? void 0,
    realOwnerAddress: asMaybeAddressFriendly(data.real_owner) ?? void 0,
    saleContractAddress: asMaybeAddressFriendly(data.sale_contract_address) ?? void 0,
    codeHash: data.code_hash ? Base64ToHex(data.code_hash) : void 0,
    dataHash: data.data_hash ? Base64ToHex(data.data_hash) : void 0,
    isInited: data.init,
    isSoulbound: data.is_sbt,
    isOnSale: data.on_sale
  };
  if (data.content) out.extra = data.content;
  return out;
}

// src/clients/toncenter/types/v3/NftTokenInfoV3.ts
function toTokenInfo(data) {
  const result = {
    valid: data.valid,
    type: data.type,
    name: data.name,
    description: data.description,
    image: data.image,
    extra: data.extra,
    animation: data?.extra?.animation_url
  };
  if (data.lottie) {
    result.lottie = data.lottie;
  } else if (data.extra && typeof data.extra === "object" && "lottie" in data.extra) {
    const lottieValue = data.extra.lottie;
    if (typeof lottieValue === "string") {
      result.lottie = lottieValue;
    }
  }
  if (data?.extra?.animation_url) {
    result.animation = data.extra.animation_url;
  } else if (data?.extra?.content_url && data.extra.content_url.includes("mp4")) {
    result.animation = data.extra.content_url;
  }
  return result;
}

// src/clients/toncenter/types/nfts.ts
function toApiTokenInfo(data) {
  let lottie;
  let animationUrl;
  if (data?.extra?.animation_url) {
    animationUrl = data.extra.animation_url;
  } else if (data?.extra?.content_url && data.extra.content_url.includes("mp4")) {
    animationUrl = data.extra.content_url;
  }
  if (data.lottie) {
    lottie = data.lottie;
  } else if (data.extra && typeof data.extra === "object" && "lottie" in data.extra) {
    const lottieValue = data.extra.lottie;
    if (typeof lottieValue === "string") {
      lottie = lottieValue;
    }
  }
  return {
    name: data.name,
    description: data.description,
    image: {
      url: data.image ?? data.extra?._image_medium,
      smallUrl: data.extra?._image_small,
      mediumUrl: data.extra?._image_medium,
      largeUrl: data.extra?._image_big
    },
    animation: {
      url: animationUrl,
      lottie
    },
    symbol: data.symbol
  };
}

// src/clients/toncenter/types/v3/NftItemsResponseV3.ts
function toNftItemsResponse(data) {
  const metadata = {};
  const collections = {};
  if (data.metadata) {
    for (const address of Object.keys(data.metadata)) {
      if (!data.metadata[address].token_info || data.metadata[address].token_info.length === 0) {
        continue;
      }
      const tokenInfo = data.metadata[address].token_info[0];
      if (tokenInfo.type === "nft_items") {
        metadata[asAddressFriendly(address)] = {
          isIndexed: data.metadata[address].is_indexed,
          tokenInfo: [toTokenInfo(tokenInfo)]
        };
      } else if (tokenInfo.type === "nft_collections") {
        const collection = tokenMetaToNftCollection(address, tokenInfo);
        if (collection) {
          collections[asAddressFriendly(address)] = collection;
        }
      }
    }
  }
  const out = {
    addressBook: {},
    // metadata,
    nfts: (data.nft_items ?? []).map((data2) => {
      const item = toNftItem(data2);
      const meta = metadata[item.address];
      if (meta) {
        const tokenInfo = meta.tokenInfo.filter((it) => it.valid);
        if (tokenInfo.length > 0) {
          item.info = toApiTokenInfo(tokenInfo[0]);
        }
      }
      const itemCollection = item.collection;
      const itemCollectionMeta = item.collection?.address ? collections[asAddressFriendly(item.collection?.address)] : void 0;
      if (itemCollection || itemCollectionMeta) {
        item.collection = {
          ...itemCollection,
          ...itemCollectionMeta
        };
      }
      return item;
    })
  };
  if (data.address_book) {
    for (const address of Object.keys(data.address_book)) {
      if (out.addressBook) {
        out.addressBook[asAddressFriendly(address)] = {
          address: asAddressFriendly(address),
          domain: data.address_book[address].domain ?? void 0,
          interfaces: data.address_book[address].interfaces ?? []
        };
      }
    }
  }
  return out;
}

// src/clients/toncenter/mappers/map-transactions.ts
function toTransactionsResponse(response) {
  return {
    transactions: response.transactions?.map(toTransaction) ?? [],
    addressBook: toAddressBook(response.address_book)
  };
}
function toTransaction(tx) {
  return {
    account: asAddressFriendly(tx.account),
    accountStateBefore: toAccountState2(tx.account_state_before),
    accountStateAfter: toAccountState2(tx.account_state_after),
    description: toTransactionDescription2(tx.description),
    hash: Base64ToHex(tx.hash),
    logicalTime: tx.lt,
    now: tx.now,
    mcBlockSeqno: tx.mc_block_seqno,
    traceExternalHash: Base64ToHex(tx.trace_external_hash),
    traceId: tx.trace_id ?? void 0,
    previousTransactionHash: tx.prev_trans_hash ? Base64ToHex(tx.prev_trans_hash) : void 0,
    previousTransactionLogicalTime: tx.prev_trans_lt ?? void 0,
    origStatus: toAccountStatus2(tx.orig_status),
    endStatus: toAccountStatus2(tx.end_status),
    totalFees: tx.total_fees,
    totalFeesExtraCurrencies: tx.total_fees_extra_currencies,
    blockRef: toTransactionBlockRef2(tx.block_ref),
    inMessage: tx.in_msg ? toTransactionMessage2(tx.in_msg) : void 0,
    outMessages: tx.out_msgs?.map(toTransactionMessage2) ?? [],
    isEmulated: tx.emulated
  };
}
function toAccountStatus2(status) {
  if (status === "active") {
    return { type: "active" };
  } else if (status === "frozen") {
    return { type: "frozen" };
  } else if (status === "uninit") {
    return { type: "uninit" };
  } else {
    return { type: "unknown", value: status };
  }
}
function toTransactionBlockRef2(ref) {
  return {
    workchain: ref.workchain,
    shard: ref.shard,
    seqno: ref.seqno
  };
}
function toTransactionDescription2(desc) {
  return {
    type: desc.type,
    isAborted: desc.aborted,
    isDestroyed: desc.destroyed,
    isCreditFirst: desc.credit_first,
    isTock: desc.is_tock,
    isInstalled: desc.installed,
    storagePhase: {
      storageFeesCollected: desc.storage_ph?.storage_fees_collected,
      statusChange: desc.storage_ph?.status_change
    },
    creditPhase: desc.credit_ph ? {
      credit: desc.credit_ph?.credit
    } : void 0,
    computePhase: {
      isSkipped: desc.compute_ph?.skipped,
      isSuccess: desc.compute_ph?.success,
      isMessageStateUsed: desc.compute_ph?.msg_state_used,
      isAccountActivated: desc.compute_ph?.account_activated,
      gasFees: desc.compute_ph?.gas_fees,
      gasUsed: desc.compute_ph?.gas_used,
      gasLimit: desc.compute_ph?.gas_limit,
      gasCredit: desc.compute_ph?.gas_credit,
      mode: desc.compute_ph?.mode,
      exitCode: desc.compute_ph?.exit_code,
      vmStepsNumber: desc.compute_ph?.vm_steps,
      vmInitStateHash: desc.compute_ph?.vm_init_state_hash ? Base64ToHex(desc.compute_ph.vm_init_state_hash) : void 0,
      vmFinalStateHash: desc.compute_ph?.vm_final_state_hash ? Base64ToHex(desc.compute_ph.vm_final_state_hash) : void 0
    },
    action: {
      isSuccess: desc.action?.success,
      isValid: desc.action?.valid,
      hasNoFunds: desc.action?.no_funds,
      statusChange: desc.action?.status_change,
      totalForwardingFees: desc.action?.total_fwd_fees,
      totalActionFees: desc.action?.total_action_fees,
      resultCode: desc.action?.result_code,
      totalActionsNumber: desc.action?.tot_actions,
      specActionsNumber: desc.action?.spec_actions,
      skippedActionsNumber: desc.action?.skipped_actions,
      messagesCreatedNumber: desc.action?.msgs_created,
      actionListHash: desc.action?.action_list_hash ? Base64ToHex(desc.action.action_list_hash) : void 0,
      totalMessagesSize: {
        cells: parseMsgSizeCount(desc.action?.tot_msg_size.cells),
        bits: parseMsgSizeCount(desc.action?.tot_msg_size.bits)
      }
    }
  };
}
function toTransactionMessage2(msg) {
  return {
    hash: Base64ToHex(msg.hash),
    normalizedHash: msg.hash_norm ? Base64ToHex(msg.hash_norm) : void 0,
    source: asMaybeAddressFriendly(msg.source) ?? void 0,
    destination: asMaybeAddressFriendly(msg.destination) ?? void 0,
    value: msg.value ?? void 0,
    valueExtraCurrencies: msg.value_extra_currencies,
    fwdFee: msg.fwd_fee ?? void 0,
    ihrFee: msg.ihr_fee ?? void 0,
    creationLogicalTime: msg.created_lt ?? void 0,
    createdAt: msg.created_at ? Number(msg.created_at) : void 0,
    ihrDisabled: msg.ihr_disabled ?? void 0,
    isBounce: msg.bounce ?? void 0,
    isBounced: msg.bounced ?? void 0,
    importFee: msg.import_fee ?? void 0,
    opcode: msg.opcode ?? void 0,
    messageContent: {
      hash: msg.message_content?.hash ? Base64ToHex(msg.message_content.hash) : void 0,
      body: msg.message_content?.body ? msg.message_content.body : void 0,
      decoded: msg.message_content?.decoded ?? void 0
    }
  };
}
function toAccountState2(state) {
  return {
    hash: Base64ToHex(state.hash),
    balance: state.balance,
    extraCurrencies: state.extra_currencies ?? void 0,
    accountStatus: state.account_status ? toAccountStatus2(state.account_status) : void 0,
    frozenHash: state.frozen_hash ? Base64ToHex(state.frozen_hash) : void 0,
    dataHash: state.data_hash ? Base64ToHex(state.data_hash) : void 0,
    codeHash: state.code_hash ? Base64ToHex(state.code_hash) : void 0
  };
}

// src/clients/toncenter/types/v3/DNSRecordV3.ts
function toDnsRecord(data) {
  return {
    dnsNextResolver: data.dns_next_resolver,
    dnsSiteAdnl: data.dns_site_adnl,
    dnsStorageBagId: data.dns_storage_bag_id,
    dnsWallet: asMaybeAddressFriendly(data.dns_wallet),
    domain: data.domain,
    nftItemAddress: asAddressFriendly(data.nft_item_address),
    nftItemOwner: asAddressFriendly(data.nft_item_owner)
  };
}

// src/clients/toncenter/types/v3/DNSRecordsResponseV3.ts
function toDnsRecords(data) {
  const out = {
    addressBook: {},
    records: data.records ? data.records.map(toDnsRecord) : []
  };
  for (const key of Object.keys(data.address_book)) {
    out.addressBook[asAddressFriendly(key)] = {
      domain: data.address_book[key].domain
    };
  }
  return out;
}

// src/types/toncenter/parsers/TonTransfer.ts
import { fromNano } from "@ton/core";
function parseOutgoingTonTransfers(tx, addressBook, status) {
  const actions = [];
  for (const msg of tx.out_msgs || []) {
    const valueNum = toPositiveNumber(msg.value);
    if (valueNum === null) {
      continue;
    }
    const sender = msg.source ?? tx.account;
    const recipient = msg.destination;
    const amount = BigInt(valueNum);
    const recipientAccount = msg.init_state ? toContractAccount(recipient, addressBook) : toAccount(recipient, addressBook);
    const comment = extractComment(msg) ?? void 0;
    actions.push({
      type: "TonTransfer",
      id: Base64ToHex(tx.hash),
      status,
      TonTransfer: {
        sender: toAccount(sender, addressBook),
        recipient: recipientAccount,
        amount,
        ...comment !== void 0 ? { comment } : {}
      },
      simplePreview: {
        name: "Ton Transfer",
        description: `Transferring ${fromNano(String(amount))} TON`,
        value: `${fromNano(String(amount))} TON`,
        accounts: [toAccount(sender, addressBook), recipientAccount]
      },
      baseTransactions: [Base64ToHex(tx.hash)]
    });
  }
  return actions;
}
function parseIncomingTonTransfers(tx, addressBook, status) {
  const actions = [];
  const msg = tx.in_msg;
  if (!msg) {
    return actions;
  }
  const valueNum = toPositiveNumber(msg.value);
  if (valueNum === null) {
    return actions;
  }
  const sender = msg.source ?? tx.account;
  const recipient = msg.destination;
  const amount = BigInt(valueNum);
  const incomingStatus = computeIncomingTonTransferStatus(tx, status);
  const recipientAccount = msg.init_state ? toContractAccount(recipient, addressBook) : toAccount(recipient, addressBook);
  const comment = extractComment(msg) ?? void 0;
  actions.push({
    type: "TonTransfer",
    id: Base64ToHex(tx.hash),
    status: incomingStatus,
    TonTransfer: {
      sender: toAccount(sender, addressBook),
      recipient: recipientAccount,
      amount,
      ...comment !== void 0 ? { comment } : {}
    },
    simplePreview: {
      name: "Ton Transfer",
      description: `Transferring ${fromNano(String(amount))} TON`,
      value: `${fromNano(String(amount))} TON`,
      accounts: [toAccount(sender, addressBook), recipientAccount]
    },
    baseTransactions: [Base64ToHex(tx.hash)]
  });
  return actions;
}
function computeStatus(tx) {
  const aborted = Boolean(tx.description?.aborted);
  const computeSuccess = Boolean(tx.description?.compute_ph?.success);
  const actionSuccess = Boolean(tx.description?.action?.success);
  return !aborted && computeSuccess && actionSuccess ? "success" : "failure";
}
function computeIncomingTonTransferStatus(tx, defaultStatus) {
  const description = tx.description;
  const creditPh = description?.credit_ph;
  const credit = creditPh?.credit;
  if (credit && Number(credit) > 0) {
    return "success";
  }
  return defaultStatus;
}
function toPositiveNumber(value) {
  if (value === null || value === void 0) {
    return null;
  }
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) {
    return null;
  }
  return n;
}
function extractComment(msg) {
  const decoded = msg.message_content && msg.message_content.decoded;
  if (decoded && typeof decoded === "object") {
    if (typeof decoded.comment === "string" && decoded.comment.length > 0) {
      return decoded.comment;
    }
    if (decoded["@type"] === "text_comment" && typeof decoded.text === "string" && decoded.text.length > 0) {
      return decoded.text;
    }
  }
  return null;
}
function toContractAccount(address, addressBook) {
  const acc = toAccount(address, addressBook);
  return { ...acc, isWallet: false };
}

// src/types/toncenter/parsers/Contract.ts
import { fromNano as fromNano2 } from "@ton/core";
function parseContractActions(ownerFriendly, transactions, addressBook) {
  const actions = [];
  for (const hash of Object.keys(transactions)) {
    const tx = transactions[hash];
    if (asAddressFriendly(tx.account) !== ownerFriendly) continue;
    const status = computeStatus(tx);
    for (const msg of tx.out_msgs || []) {
      if (!msg || !msg.destination) continue;
      if (!msg.opcode) continue;
      const contractAddress = msg.destination;
      const tonAttached = BigInt(Number(msg.value || "0"));
      const operation = msg.opcode;
      const child = findChildTransactionByInMsgHash(transactions, msg.hash);
      const baseTx = child ? Base64ToHex(child.hash) : Base64ToHex(tx.hash);
      const exec = {
        type: "SmartContractExec",
        id: Base64ToHex(tx.hash),
        status,
        SmartContractExec: {
          executor: toAccount(ownerFriendly, addressBook),
          contract: toContractAccount2(contractAddress, addressBook),
          tonAttached,
          operation,
          payload: ""
        },
        simplePreview: {
          name: "Smart Contract Execution",
          description: "Execution of smart contract",
          value: `${fromNano2(String(tonAttached))} TON`,
          accounts: [toAccount(ownerFriendly, addressBook), toContractAccount2(contractAddress, addressBook)]
        },
        baseTransactions: [baseTx]
      };
      actions.push(exec);
      if (child && isDeploy(child, msg)) {
        const deploy = {
          type: "ContractDeploy",
          id: Base64ToHex(child.hash),
          status: computeStatus(child),
          ContractDeploy: {
            address: asAddressFriendly(contractAddress),
            interfaces: []
          },
          simplePreview: {
            name: "Contract Deploy",
            description: "Deploying a contract",
            value: "",
            accounts: [toContractAccount2(contractAddress, addressBook)]
          },
          baseTransactions: [baseTx]
        };
        actions.push(deploy);
      }
    }
  }
  return actions;
}
function isDeploy(child, msg) {
  const created = child.orig_status === "nonexist" && child.end_status === "active";
  const hasInit = Boolean(msg.init_state) || Boolean(child.in_msg && child.in_msg.init_state);
  return created || hasInit;
}
function findChildTransactionByInMsgHash(transactions, inMsgHashBase64) {
  for (const key of Object.keys(transactions)) {
    const t = transactions[key];
    if (t.in_msg && t.in_msg.hash === inMsgHashBase64) return t;
  }
  return null;
}
function toContractAccount2(address, addressBook) {
  const acc = toAccount(address, addressBook);
  return { ...acc, isWallet: false };
}

// src/types/toncenter/parsers/Jetton.ts
function parseJettonActions(ownerFriendly, item, addressBook) {
  const actions = [];
  const txs = item.transactions || {};
  let added = false;
  for (const key of Object.keys(txs)) {
    const tx = txs[key];
    const inMsg = tx.in_msg;
    const decoded = getDecoded(inMsg);
    if (!decoded) continue;
    if (decoded["@type"] === "jetton_transfer" && inMsg?.source && asAddressFriendly(inMsg.source) === ownerFriendly) {
      const amount = toBigInt(readAmountValue(getProp(decoded, "amount")));
      const dest = toAddr(getProp(decoded, "destination"));
      const comment = extractCommentFromDecoded(getForwardPayloadValue(decoded)) ?? void 0;
      const senderWallet = asAddressFriendly(tx.account);
      const recipientWallet = findRecipientJettonWalletFromOut(tx);
      const status = computeStatus2(tx);
      const id = findFirstOwnerTxId(ownerFriendly, item) ?? Base64ToHex(tx.hash);
      const base = collectBaseTransactionsSent(item, ownerFriendly);
      const jetton = buildJettonInfo(item, senderWallet, addressBook);
      const action = {
        type: "JettonTransfer",
        id,
        status,
        JettonTransfer: {
          sender: toAccount(ownerFriendly, addressBook),
          recipient: toAccount(dest, addressBook),
          sendersWallet: senderWallet,
          recipientsWallet: recipientWallet ?? "",
          amount,
          comment,
          jetton
        },
        simplePreview: jettonPreview(amount, jetton.symbol, jetton.decimals, jetton.image, [
          toAccount(dest, addressBook),
          toAccount(ownerFriendly, addressBook),
          toContractAccount3(
            jetton.address || inferMinterFromAddressBook(addressBook)?.address || "",
            addressBook
          )
        ]),
        baseTransactions: base
      };
      actions.push(action);
      added = true;
    }
  }
  if (!added)
    for (const key of Object.keys(txs)) {
      const tx = txs[key];
      if (asAddressFriendly(tx.account) === ownerFriendly) continue;
      const inMsg = tx.in_msg;
      const decoded = getDecoded(inMsg);
      if (!decoded) continue;
      if (decoded["@type"] === "jetton_internal_transfer") {
        const amount = toBigInt(readAmountValue(getProp(decoded, "amount")));
        const senderMain = toAddr(getProp(decoded, "from"));
        const recipientWallet = asAddressFriendly(tx.account);
        const senderWallet = asAddressFriendly(inMsg.source);
        const status = computeStatus2(tx);
        const id = getTraceRootId(item) ?? Base64ToHex(tx.hash);
        const base = collectBaseTransactionsReceived(item, ownerFriendly);
        const jetton = buildJettonInfo(item, recipientWallet, addressBook);
        const action = {
          type: "JettonTransfer",
          id,
          status,
          JettonTransfer: {
            sender: toAccount(senderMain, addressBook),
            recipient: toAccount(ownerFriendly, addressBook),
            sendersWallet: senderWallet,
            recipientsWallet: recipientWallet,
            amount,
            jetton
          },
          simplePreview: jettonPreview(amount, jetton.symbol, jetton.decimals, jetton.image, [
            toAccount(ownerFriendly, addressBook),
            toAccount(senderMain, addressBook),
            toContractAccount3(
              jetton.address || inferMinterFromAddressBook(addressBook)?.address || "",
              addressBook
            )
          ]),
          baseTransactions: base
        };
        actions.push(action);
        added = true;
      }
    }
  return actions;
}
function extractCommentFromDecoded(decoded) {
  if (!isRecord2(decoded)) return null;
  const t = decoded["@type"];
  if (t === "text_comment") {
    const txt = decoded["text"];
    if (typeof txt === "string" && txt.length > 0) return txt;
  }
  return null;
}
function toBigInt(value) {
  if (value === void 0 || value === null) return BigInt(0);
  const n = typeof value === "string" ? Number(value) : value;
  return BigInt(Number.isFinite(n) ? n : 0);
}
function toAddr(raw) {
  if (!raw) return "";
  if (typeof raw === "string") {
    if (/^[A-Fa-f0-9]{64}$/.test(raw)) {
      return asAddressFriendly(`0:${raw}`);
    }
    return asAddressFriendly(raw);
  }
  if (isRecord2(raw)) {
    const wc = raw["workchain_id"];
    const addr = raw["address"];
    if ((typeof wc === "string" || typeof wc === "number") && typeof addr === "string") {
      return asAddressFriendly(`${wc}:${addr}`);
    }
  }
  return "";
}
function jettonPreview(amount, symbol, decimals, image, accounts) {
  let denom = BigInt(1);
  for (let i = 0; i < (decimals || 0); i++) denom = denom * BigInt(10);
  const value = Number(amount) / Number(denom);
  const human = symbol ? `${trimAmount(value)} ${symbol}` : `${trimAmount(value)}`;
  const preview = {
    name: "Jetton Transfer",
    description: `Transferring ${human}`,
    value: human,
    accounts
  };
  if (image) preview.valueImage = image;
  return preview;
}
function computeStatus2(tx) {
  const aborted = Boolean(tx.description?.aborted);
  const computePh = tx.description?.["compute_ph"];
  const action = tx.description?.["action"];
  const computeSuccess = Boolean(computePh && Boolean(computePh["success"]));
  const actionSuccess = Boolean(action && Boolean(action["success"]));
  return !aborted && computeSuccess && actionSuccess ? "success" : "failure";
}
function findFirstOwnerTxId(ownerFriendly, item) {
  for (const h of item.transactions_order || []) {
    const tx = item.transactions[h];
    if (tx && asAddressFriendly(tx.account) === ownerFriendly) {
      return Base64ToHex(h);
    }
  }
  return null;
}
function getTraceRootId(item) {
  const first = (item.transactions_order || [])[0];
  return first ? Base64ToHex(first) : null;
}
function findRecipientJettonWalletFromOut(tx) {
  for (const m of tx.out_msgs || []) {
    const d = getDecoded(m);
    if (m.opcode === "0x178d4519" /* JettonInternalTransfer */ || d && d["@type"] === "jetton_internal_transfer") {
      return asAddressFriendly(m.destination);
    }
  }
  return null;
}
function collectBaseTransactionsSent(item, ownerFriendly) {
  const order = item.transactions_order || [];
  const pairs = [];
  for (const h of order) {
    const tx = item.transactions[h];
    if (!tx) continue;
    if (asAddressFriendly(tx.account) === ownerFriendly) continue;
    const t = getTxType(tx);
    if (t) pairs.push({ type: t, hex: Base64ToHex(h) });
  }
  const priority = {
    jetton_transfer: 1,
    jetton_notify: 2,
    jetton_internal_transfer: 3,
    excess: 4
  };
  pairs.sort((a, b) => (priority[a.type] ?? 99) - (priority[b.type] ?? 99));
  return pairs.map((p) => p.hex);
}
function collectBaseTransactionsReceived(item, ownerFriendly) {
  const order = item.transactions_order || [];
  const findTx = (predicate) => {
    for (const h of order) {
      const tx = item.transactions[h];
      if (!tx) continue;
      if (predicate(tx)) return Base64ToHex(h);
    }
    return null;
  };
  const root = getTraceRootId(item);
  const isType = (tx, type) => getTxType(tx) === type;
  const jt = findTx((tx) => isType(tx, "jetton_transfer"));
  const internal = findTx(
    (tx) => isType(tx, "jetton_internal_transfer") && asAddressFriendly(tx.account) !== ownerFriendly
  );
  const excess = findTx((tx) => isType(tx, "excess"));
  const out = [];
  if (root) out.push(root);
  if (jt) out.push(jt);
  if (internal) out.push(internal);
  if (excess) out.push(excess);
  return out;
}
function getTxType(tx) {
  const fromBody = extractOpFromBody(tx.in_msg);
  return matchOpWithMap(
    fromBody || tx.in_msg?.opcode || "",
    ["jetton_transfer", "jetton_internal_transfer", "jetton_notify", "excess"],
    {
      ["0x0f8a7ea5" /* JettonTransfer */]: "jetton_transfer",
      ["0x178d4519" /* JettonInternalTransfer */]: "jetton_internal_transfer",
      ["0x7362d09c" /* JettonNotify */]: "jetton_notify",
      ["0xd53276db" /* Excess */]: "excess"
    }
  );
}
function buildJettonInfo(item, walletFriendly, addressBook) {
  const walletInfo = addressBook[walletFriendly];
  if (walletInfo?.jettonWallet?.jettonMaster) {
    const masterAddress = asMaybeAddressFriendly(walletInfo.jettonWallet.jettonMaster);
    const masterInfo = masterAddress ? addressBook[masterAddress] : void 0;
    if (masterInfo?.jetton) {
      return masterInfo.jetton;
    }
  }
  const metadata = item.metadata;
  let master;
  if (metadata) {
    for (const [raw, infoAny] of Object.entries(metadata)) {
      const info = infoAny;
      const tokenInfo = info["token_info"];
      if (!Array.isArray(tokenInfo)) continue;
      for (const tAny of tokenInfo) {
        const t = tAny;
        if (t["type"] === "jetton_wallets") {
          const extra = t["extra"];
          const owner = extra?.["owner"];
          if (typeof owner === "string" && asAddressFriendly(owner) && asAddressFriendly(raw) === walletFriendly) {
            const j = extra?.["jetton"];
            if (typeof j === "string") master = j;
          }
        }
      }
    }
  }
  let name = "";
  let symbol = "";
  let decimals = 0;
  let image;
  if (master && metadata && metadata[master]) {
    const m = metadata[master];
    name = m["name"] || "";
    symbol = m["symbol"] || "";
    const extra = m["extra"];
    const dec = extra?.["decimals"];
    decimals = typeof dec === "string" ? parseInt(dec, 10) : 0;
    image = m["image"] || extra?.["_image_small"] || extra?.["_image_medium"] || extra?.["_image_big"];
  }
  let outAddress = master ? asAddressFriendly(master) : "";
  if (!outAddress) {
    const inferred = inferMinterFromAddressBook(addressBook);
    if (inferred) {
      outAddress = inferred.address;
      if (!name) name = inferred.name;
      if (!symbol) symbol = inferred.symbol;
      if (!decimals) decimals = inferred.decimals;
      if (!image) image = inferred.image;
    }
  }
  return {
    address: outAddress,
    name,
    symbol,
    decimals,
    image: image ?? "",
    verification: "whitelist",
    score: 100
  };
}
function toContractAccount3(address, addressBook) {
  const acct = toAccount(address, addressBook);
  return { ...acct, isWallet: false };
}
function inferMinterFromAddressBook(addressBook) {
  const knownMinterByDomain = "usdt-minter.ton";
  for (const key of Object.keys(addressBook)) {
    const entry = addressBook[key];
    const domain = entry && entry.domain;
    if (domain === knownMinterByDomain || typeof domain === "string" && domain.includes("minter")) {
      return {
        address: key,
        name: "Tether USD",
        symbol: "USD\u20AE",
        decimals: 6,
        image: "https://cache.tonapi.io/imgproxy/T3PB4s7oprNVaJkwqbGg54nexKE0zzKhcrPv8jcWYzU/rs:fill:200:200:1/g:no/aHR0cHM6Ly90ZXRoZXIudG8vaW1hZ2VzL2xvZ29DaXJjbGUucG5n.webp"
      };
    }
  }
  return null;
}
function trimAmount(v) {
  if (v >= 1) return `${Number(v.toFixed(3)).toString().replace(/\.0+$/, "")}`;
  const s = v.toFixed(9);
  return s.replace(/0+$/, "").replace(/\.$/, "");
}
function isRecord2(v) {
  return typeof v === "object" && v !== null;
}
function getProp(obj, key) {
  return isRecord2(obj) ? obj[key] : void 0;
}
function readAmountValue(obj) {
  if (!isRecord2(obj)) return void 0;
  const v = obj["value"];
  if (typeof v === "string" || typeof v === "number") return v;
  return void 0;
}
function getForwardPayloadValue(decoded) {
  const fp = getProp(decoded, "forward_payload");
  return isRecord2(fp) ? fp["value"] : void 0;
}

// src/types/toncenter/parsers/Nft.ts
function parseNftActions(ownerFriendly, item, addressBook) {
  const actions = [];
  const txs = item.transactions || {};
  for (const key of Object.keys(txs)) {
    const tx = txs[key];
    if (asAddressFriendly(tx.account) !== ownerFriendly) continue;
    for (const out of tx.out_msgs || []) {
      const decoded = getDecoded(out);
      if (decoded?.["@type"] === "nft_transfer") {
        const newOwner = toAddr2(getProp2(decoded, "new_owner"));
        const nftAddr = out.destination ? asAddressFriendly(out.destination) : "";
        const status = computeStatus(tx);
        const base = collectBaseTransactionsForSent(item, ownerFriendly, newOwner, nftAddr);
        const action = buildNftAction(status, ownerFriendly, newOwner, nftAddr, addressBook, base);
        actions.push(action);
      }
    }
  }
  for (const key of Object.keys(txs)) {
    const tx = txs[key];
    const acc = asAddressFriendly(tx.account);
    const decoded = getDecoded(tx.in_msg);
    if (!decoded) continue;
    const t = decoded["@type"];
    if (acc === ownerFriendly && (t === "nft_ownership_assigned" || t === "nft_owner_changed")) {
      const prevOwner = toAddr2(getProp2(decoded, "prev_owner")) || toAddr2(getProp2(decoded, "old_owner"));
      const nftAddr = tx.in_msg?.source ? asAddressFriendly(tx.in_msg.source) : "";
      const nftTx = findTransactionByAccount(item, nftAddr);
      const status = nftTx ? computeStatus(nftTx) : computeStatus(tx);
      const base = collectBaseTransactionsForReceived(item, ownerFriendly, nftAddr);
      const action = buildNftAction(status, prevOwner, ownerFriendly, nftAddr, addressBook, base);
      actions.push(action);
    }
  }
  return actions;
}
function buildNftAction(status, senderFriendly, recipientFriendly, nftAddress, addressBook, base) {
  const preview = {
    name: "NFT Transfer",
    description: "Transferring 1 NFT",
    value: "1 NFT",
    accounts: [
      toAccount(recipientFriendly, addressBook),
      toAccount(senderFriendly, addressBook),
      toContractAccount4(nftAddress, addressBook)
    ]
  };
  return {
    type: "NftItemTransfer",
    id: base[0] || "",
    status,
    NftItemTransfer: {
      sender: toAccount(senderFriendly, addressBook),
      recipient: toAccount(recipientFriendly, addressBook),
      nft: nftAddress
    },
    simplePreview: preview,
    baseTransactions: base
  };
}
function collectBaseTransactionsForSent(item, ownerFriendly, newOwner, nftAddr) {
  const order = item.transactions_order || [];
  let ownerTonFromNft = null;
  let assignToNewOwner = null;
  let nftTransferHash = null;
  for (const h of order) {
    const tx = item.transactions[h];
    if (!tx) continue;
    const acc = asAddressFriendly(tx.account);
    const t = getNftType(tx);
    if (!ownerTonFromNft && acc === ownerFriendly && tx.in_msg?.source && asAddressFriendly(tx.in_msg.source) === nftAddr) {
      ownerTonFromNft = Base64ToHex(h);
    }
    if (!assignToNewOwner && acc === asAddressFriendly(newOwner) && (t === "nft_ownership_assigned" || t === "nft_owner_changed")) {
      assignToNewOwner = Base64ToHex(h);
    }
    if (!nftTransferHash && acc === nftAddr && t === "nft_transfer") {
      nftTransferHash = Base64ToHex(h);
    }
  }
  return [ownerTonFromNft, assignToNewOwner, nftTransferHash].filter(Boolean);
}
function getNftType(tx) {
  const t = extractOpFromBody(tx.in_msg) || tx.in_msg?.opcode || "";
  return matchOpWithMap(t, ["nft_transfer", "nft_ownership_assigned", "nft_owner_changed", "excess"], {
    ["0x5fcc3d14" /* NftTransfer */]: "nft_transfer",
    ["0x05138d91" /* NftOwnershipAssigned */]: "nft_ownership_assigned",
    ["0x7bdd97de" /* NftOwnerChanged */]: "nft_owner_changed",
    ["0xd53276db" /* Excess */]: "excess"
  });
}
function collectBaseTransactionsForReceived(item, ownerFriendly, nftAddr) {
  const order = item.transactions_order || [];
  let ownerFromNft = null;
  const outToOwner = [];
  const others = [];
  for (const h of order) {
    const tx = item.transactions[h];
    if (!tx) continue;
    const acc = asAddressFriendly(tx.account);
    if (!ownerFromNft && acc === ownerFriendly && tx.in_msg?.source && asAddressFriendly(tx.in_msg.source) === nftAddr) {
      ownerFromNft = Base64ToHex(h);
      continue;
    }
    if (acc !== ownerFriendly) {
      const hex = Base64ToHex(h);
      const targetsOwner = (tx.out_msgs || []).some((m) => asAddressFriendly(m.destination) === ownerFriendly);
      if (targetsOwner) outToOwner.push(hex);
      others.push(hex);
    }
  }
  const firstOther = outToOwner[0] || null;
  const base = [];
  if (firstOther) base.push(firstOther);
  const second = others.find((h) => h !== firstOther) || null;
  if (second) base.push(second);
  if (ownerFromNft) base.push(ownerFromNft);
  return base;
}
function toContractAccount4(address, addressBook) {
  const acc = toAccount(address, addressBook);
  return { ...acc, isWallet: false };
}
function findTransactionByAccount(item, account) {
  for (const key of Object.keys(item.transactions || {})) {
    const t = item.transactions[key];
    if (t && asAddressFriendly(t.account) === account) return t;
  }
  return null;
}
function toAddr2(raw) {
  if (!raw) return "";
  if (typeof raw === "string") {
    if (/^[A-Fa-f0-9]{64}$/.test(raw)) return asAddressFriendly(`0:${raw}`);
    return asAddressFriendly(raw);
  }
  if (isRecord3(raw)) {
    const wc = raw["workchain_id"];
    const addr = raw["address"];
    if ((typeof wc === "string" || typeof wc === "number") && typeof addr === "string") {
      return asAddressFriendly(`${wc}:${addr}`);
    }
  }
  return "";
}
function isRecord3(v) {
  return typeof v === "object" && v !== null;
}
function getProp2(obj, key) {
  return isRecord3(obj) ? obj[key] : void 0;
}

// src/types/toncenter/AccountEvent.ts
function toAddressBook2(data) {
  const out = {};
  for (const [address, bookRow] of Object.entries(data.address_book)) {
    const friendly = asAddressFriendly(address);
    if (bookRow.domain) {
      out[friendly] = { domain: bookRow.domain };
    }
    if (bookRow.interfaces && Array.isArray(bookRow.interfaces)) {
      const hasWalletInterface = bookRow.interfaces.some(
        (iface) => typeof iface === "string" && iface.toLowerCase().includes("wallet")
      );
      if (hasWalletInterface) {
        if (!out[friendly]) {
          out[friendly] = {};
        }
        out[friendly].isWallet = true;
      }
    }
  }
  for (const [address, meta] of Object.entries(data.metadata)) {
    const friendly = asAddressFriendly(address);
    if (!out[friendly]) {
      out[friendly] = {};
    }
    if (!meta.token_info) continue;
    for (const tokenInfo of meta.token_info) {
      if (tokenInfo.type === "jetton_masters") {
        const masterInfo = tokenInfo;
        const decimals = masterInfo.extra?.decimals ? parseInt(masterInfo.extra.decimals, 10) : 0;
        const image = masterInfo.image || masterInfo.extra?._image_small || masterInfo.extra?._image_medium || masterInfo.extra?._image_big || "";
        out[friendly].jetton = {
          address: friendly,
          name: masterInfo.name || "",
          symbol: masterInfo.symbol || "",
          decimals,
          image,
          verification: "whitelist",
          score: 100
        };
      } else if (tokenInfo.type === "jetton_wallets") {
        const walletInfo = tokenInfo;
        out[friendly].jettonWallet = {
          balance: walletInfo.extra?.balance || "0",
          jettonMaster: asAddressFriendly(walletInfo.extra?.jetton || ""),
          owner: asAddressFriendly(walletInfo.extra?.owner || "")
        };
      }
    }
  }
  return out;
}
function buildEvent(data, account, actions, addressBook) {
  const extHash = (() => {
    const firstTxHash = data.transactions_order?.[0];
    const firstTx = firstTxHash ? data.transactions[firstTxHash] : void 0;
    const inMsg = firstTx?.in_msg;
    return inMsg?.hash_norm ?? inMsg?.hash ?? data.external_hash ?? data.trace?.in_msg_hash ?? "";
  })();
  return {
    eventId: Base64ToHex(data.trace_id),
    traceExternalHash: extHash ? Base64NormalizeUrl(extHash) : void 0,
    account: toAccount(account, addressBook),
    timestamp: data.start_utime,
    actions,
    isScam: false,
    lt: Number(data.start_lt),
    inProgress: data.is_incomplete,
    trace: data.trace,
    transactions: data.transactions
  };
}
function filterActionsByPriority(actions) {
  const hasJetton = actions.some((a) => a.type === "JettonTransfer");
  const hasNft = actions.some((a) => a.type === "NftItemTransfer");
  if (hasJetton || hasNft) {
    const keepTypes = hasJetton ? ["JettonTransfer"] : ["NftItemTransfer"];
    return actions.filter((a) => keepTypes.includes(a.type));
  }
  return actions;
}
function toEvent(data, account, addressBook = {}) {
  const accountFriendly = asAddressFriendly(account);
  const transactions = data.transactions || {};
  const actions = [];
  for (const txHash of Object.keys(transactions)) {
    const tx = transactions[txHash];
    if (asAddressFriendly(tx.account) !== accountFriendly) {
      continue;
    }
    const status = computeStatus(tx);
    actions.push(
      ...parseOutgoingTonTransfers(tx, addressBook, status),
      ...parseIncomingTonTransfers(tx, addressBook, status)
    );
  }
  actions.push(
    ...parseContractActions(accountFriendly, transactions, addressBook),
    ...parseJettonActions(accountFriendly, data, addressBook),
    ...parseNftActions(accountFriendly, data, addressBook)
  );
  const filteredActions = filterActionsByPriority(actions);
  return buildEvent(data, account, filteredActions, addressBook);
}
function toAccount(address, addressBook) {
  const friendly = asMaybeAddressFriendly(address);
  const out = {
    address: friendly ?? address ?? "",
    isScam: false,
    isWallet: Boolean(friendly)
  };
  if (friendly) {
    const record = addressBook[friendly];
    if (record) {
      if (record.isScam) {
        out.isScam = record.isScam;
      }
      if (record.isWallet) {
        out.isWallet = record.isWallet;
      }
      if (record.domain) {
        out.name = record.domain;
      }
    }
  }
  return out;
}

// src/clients/toncenter/mappers/map-emulation.ts
function normalizeAccountStatus(status) {
  if (status === "active") return "active";
  if (status === "frozen") return "frozen";
  if (status === "nonexist") return "nonexist";
  return "uninit";
}
function mapTraceNode(node) {
  return {
    txHash: Base64ToHex(node.tx_hash),
    inMsgHash: node.in_msg_hash ? Base64ToHex(node.in_msg_hash) : void 0,
    children: node.children?.map(mapTraceNode) ?? []
  };
}
function mapAccountState(state) {
  return {
    hash: Base64ToHex(state.hash),
    balance: state.balance,
    extraCurrencies: state.extra_currencies ?? void 0,
    accountStatus: normalizeAccountStatus(state.account_status),
    frozenHash: state.frozen_hash ? Base64ToHex(state.frozen_hash) : void 0,
    dataHash: state.data_hash ? Base64ToHex(state.data_hash) : void 0,
    codeHash: state.code_hash ? Base64ToHex(state.code_hash) : void 0
  };
}
function mapDescription(desc) {
  return {
    type: desc.type,
    isAborted: desc.aborted,
    isDestroyed: desc.destroyed,
    isCreditFirst: desc.credit_first,
    isTock: desc.is_tock,
    isInstalled: desc.installed,
    storagePhase: {
      storageFeesCollected: desc.storage_ph.storage_fees_collected,
      statusChange: desc.storage_ph.status_change
    },
    creditPhase: desc.credit_ph ? { credit: desc.credit_ph.credit } : void 0,
    computePhase: {
      isSkipped: desc.compute_ph.skipped,
      isSuccess: desc.compute_ph.success,
      isMsgStateUsed: desc.compute_ph.msg_state_used,
      isAccountActivated: desc.compute_ph.account_activated,
      gasFees: desc.compute_ph.gas_fees,
      gasUsed: desc.compute_ph.gas_used,
      gasLimit: desc.compute_ph.gas_limit,
      gasCredit: desc.compute_ph.gas_credit,
      mode: desc.compute_ph.mode,
      exitCode: desc.compute_ph.exit_code,
      vmSteps: desc.compute_ph.vm_steps,
      vmInitStateHash: desc.compute_ph.vm_init_state_hash ? Base64ToHex(desc.compute_ph.vm_init_state_hash) : void 0,
      vmFinalStateHash: desc.compute_ph.vm_final_state_hash ? Base64ToHex(desc.compute_ph.vm_final_state_hash) : void 0
    },
    actionPhase: desc.action ? {
      isSuccess: desc.action.success,
      isValid: desc.action.valid,
      hasNoFunds: desc.action.no_funds,
      statusChange: desc.action.status_change,
      totalFwdFees: desc.action.total_fwd_fees,
      totalActionFees: desc.action.total_action_fees,
      resultCode: desc.action.result_code,
      totalActions: desc.action.tot_actions,
      specActions: desc.action.spec_actions,
      skippedActions: desc.action.skipped_actions,
      msgsCreated: desc.action.msgs_created,
      actionListHash: desc.action.action_list_hash ? Base64ToHex(desc.action.action_list_hash) : void 0,
      totalMsgSize: {
        cells: parseMsgSizeCount(desc.action.tot_msg_size.cells) ?? 0,
        bits: parseMsgSizeCount(desc.action.tot_msg_size.bits) ?? 0
      }
    } : void 0
  };
}
function mapMessage(msg) {
  return {
    hash: Base64ToHex(msg.hash),
    normalizedHash: msg.hash_norm ? Base64ToHex(msg.hash_norm) : void 0,
    source: asMaybeAddressFriendly(msg.source) ?? void 0,
    destination: asMaybeAddressFriendly(msg.destination) ?? msg.destination,
    value: msg.value ?? void 0,
    valueExtraCurrencies: msg.value_extra_currencies,
    fwdFee: msg.fwd_fee ?? void 0,
    ihrFee: msg.ihr_fee ?? void 0,
    createdLt: msg.created_lt ?? void 0,
    createdAt: msg.created_at !== null ? Number(msg.created_at) : void 0,
    opcode: msg.opcode ? asHex(msg.opcode) : void 0,
    ihrDisabled: msg.ihr_disabled ?? void 0,
    isBounce: msg.bounce ?? void 0,
    isBounced: msg.bounced ?? void 0,
    importFee: msg.import_fee ?? void 0,
    messageContent: {
      hash: msg.message_content?.hash ? Base64ToHex(msg.message_content.hash) : void 0,
      body: msg.message_content?.body ? asBase64(msg.message_content.body) : void 0,
      decoded: msg.message_content?.decoded ?? void 0
    },
    initState: msg.init_state ?? void 0
  };
}
function mapTransaction(tx) {
  return {
    account: asAddressFriendly(tx.account),
    hash: Base64ToHex(tx.hash),
    lt: tx.lt,
    now: tx.now,
    mcBlockSeqno: tx.mc_block_seqno,
    traceExternalHash: Base64ToHex(tx.trace_external_hash),
    prevTransHash: tx.prev_trans_hash ? Base64ToHex(tx.prev_trans_hash) : void 0,
    prevTransLt: tx.prev_trans_lt ?? void 0,
    origStatus: normalizeAccountStatus(tx.orig_status),
    endStatus: normalizeAccountStatus(tx.end_status),
    totalFees: tx.total_fees,
    totalFeesExtraCurrencies: tx.total_fees_extra_currencies,
    description: mapDescription(tx.description),
    blockRef: { workchain: tx.block_ref.workchain, shard: tx.block_ref.shard, seqno: tx.block_ref.seqno },
    inMsg: tx.in_msg ? mapMessage(tx.in_msg) : void 0,
    outMsgs: tx.out_msgs?.map(mapMessage) ?? [],
    accountStateBefore: mapAccountState(tx.account_state_before),
    accountStateAfter: mapAccountState(tx.account_state_after),
    isEmulated: tx.emulated,
    ...tx.trace_id !== void 0 ? { traceId: tx.trace_id } : {}
  };
}
function mapAction(action) {
  return {
    traceId: action.trace_id ?? void 0,
    actionId: Base64ToHex(action.action_id),
    startLt: action.start_lt,
    endLt: action.end_lt,
    startUtime: action.start_utime,
    endUtime: action.end_utime,
    traceEndLt: action.trace_end_lt,
    traceEndUtime: action.trace_end_utime,
    traceMcSeqnoEnd: action.trace_mc_seqno_end,
    transactions: action.transactions.map(Base64ToHex),
    isSuccess: action.success,
    type: action.type,
    traceExternalHash: Base64ToHex(action.trace_external_hash),
    accounts: action.accounts.map(asMaybeAddressFriendly).filter((a) => a !== null),
    details: action.details
  };
}
function mapToncenterEmulationResponse(raw) {
  const transactions = Object.fromEntries(
    Object.entries(raw.transactions ?? {}).map(([hash, tx]) => [Base64ToHex(hash), mapTransaction(tx)])
  );
  const addressBook = Object.fromEntries(
    Object.entries(raw.address_book ?? {}).map(([addr, row]) => [
      addr,
      {
        domain: row.domain ?? void 0,
        userFriendly: asAddressFriendly(row.user_friendly),
        interfaces: row.interfaces ?? []
      }
    ])
  );
  const codeCells = Object.fromEntries(
    Object.entries(raw.code_cells ?? {}).map(([hash, cell]) => [Base64ToHex(hash), asBase64(cell)])
  );
  const dataCells = Object.fromEntries(
    Object.entries(raw.data_cells ?? {}).map(([hash, cell]) => [Base64ToHex(hash), asBase64(cell)])
  );
  return {
    mcBlockSeqno: raw.mc_block_seqno,
    trace: mapTraceNode(raw.trace),
    transactions,
    actions: raw.actions?.map(mapAction) ?? [],
    randSeed: Base64ToHex(raw.rand_seed),
    isIncomplete: raw.is_incomplete,
    codeCells,
    dataCells,
    addressBook
  };
}

// src/clients/TonClientError.ts
var TonClientError = class extends Error {
  status;
  details;
  constructor(message, status, details) {
    super(message);
    this.name = "TonClientError";
    this.status = status;
    this.details = details;
  }
};

// src/clients/BaseApiClient.ts
var BaseApiClient = class {
  endpoint;
  apiKey;
  timeout;
  fetchApi;
  network;
  disableNetworkSend;
  constructor(config, defaultEndpoint) {
    this.network = config.network ?? Network.testnet();
    this.endpoint = config.endpoint ?? defaultEndpoint;
    this.apiKey = config.apiKey;
    this.timeout = config.timeout ?? 3e4;
    this.fetchApi = config.fetchApi ?? fetch;
    this.disableNetworkSend = config.disableNetworkSend ?? false;
  }
  async fetch(url, props = {}) {
    const headers = new Headers(props.headers);
    headers.set("accept", "application/json");
    this.appendAuthHeaders(headers);
    props = { ...props, headers };
    const response = await this.doRequest(url, props);
    if (!response.ok) {
      throw await this.buildError(response);
    }
    const contentType = response.headers.get("content-type") || "";
    if (!contentType.includes("application/json")) {
      const text = await response.text();
      throw new TonClientError("Unexpected non-JSON response", response.status, text.slice(0, 200));
    }
    const json = await response.json();
    return json;
  }
  async getJson(path, query) {
    return this.fetch(this.buildUrl(path, query), { method: "GET" });
  }
  async postJson(path, props) {
    return this.fetch(this.buildUrl(path), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(props)
    });
  }
  buildUrl(path, query = {}) {
    const url = new URL(path.replace(/^\/*/, "/"), this.endpoint);
    for (const [key, value] of Object.entries(query)) {
      if (typeof value === "string") url.searchParams.set(key, value);
      else if (Array.isArray(value)) {
        for (const item of value) {
          if (typeof item === "string") url.searchParams.set(key, item);
          else if (item != null && typeof item.toString === "function") {
            url.searchParams.set(key, item.toString());
          }
        }
      } else if (value != null && typeof value.toString === "function") {
        url.searchParams.set(key, value.toString());
      }
    }
    return url;
  }
  async buildError(response) {
    const message = response.statusText || "HTTP Error";
    const code = response.status ?? 500;
    let detail;
    try {
      detail = await response.json();
    } catch {
    }
    return new TonClientError(`HTTP ${response.status}: ${message}`, code, detail);
  }
  async doRequest(url, init = {}) {
    const fetchFn = this.fetchApi;
    if (!this.timeout || this.timeout <= 0) {
      return fetchFn(url, init);
    }
    const controller = new AbortController();
    const timeoutId = setTimeout(() => controller.abort(), this.timeout);
    try {
      return await fetchFn(url, { ...init, signal: controller.signal });
    } finally {
      clearTimeout(timeoutId);
    }
  }
};

// src/clients/toncenter/ApiClientToncenter.ts
var log4 = globalLogger.createChild("ApiClientToncenter");
var ApiClientToncenter = class extends BaseApiClient {
  constructor(config = {}) {
    const defaultEndpoint = config.network?.chainId === Network.mainnet().chainId ? "https://toncenter.com" : "https://testnet.toncenter.com";
    super(config, defaultEndpoint);
  }
  getNetwork() {
    return this.network;
  }
  appendAuthHeaders(headers) {
    if (this.apiKey) headers.set("x-api-key", this.apiKey);
  }
  async nftItemsByAddress(request) {
    const props = {
      address: request.address
    };
    const response = await this.getJson("/api/v3/nft/items", props);
    return toNftItemsResponse(response);
  }
  async nftItemsByOwner(request) {
    const props = {
      owner_address: request.ownerAddress,
      limit: request.pagination?.limit ?? 10,
      offset: request.pagination?.offset ?? 0
    };
    const response = await this.getJson("/api/v3/nft/items", props);
    const formattedResponse = toNftItemsResponse(response);
    return formattedResponse;
  }
  async fetchEmulation(messageBoc, ignoreSignature) {
    const props = {
      boc: messageBoc,
      ignore_chksig: ignoreSignature === true,
      include_code_data: true,
      include_address_book: true,
      include_metadata: true,
      with_actions: true
    };
    const response = await this.postJson("/api/emulate/v1/emulateTrace", props);
    return {
      result: "success",
      emulationResult: mapToncenterEmulationResponse(response)
    };
  }
  async sendBoc(boc) {
    if (this.disableNetworkSend) {
      return "";
    }
    const response = await this.postJson("/api/v3/message", { boc });
    return `0x${Base64ToBigInt(response.message_hash_norm).toString(16)}`;
  }
  async runGetMethod(address, method, stack = [], seqno) {
    const props = {
      address,
      method,
      stack
      //serializeStack(stack),
    };
    if (typeof seqno === "number") props.seqno = seqno;
    const raw = await this.postJson("/api/v3/runGetMethod", props);
    return {
      gasUsed: raw.gas_used,
      stack: raw.stack,
      exitCode: raw.exit_code
    };
  }
  async getAccountState(address, seqno) {
    const query = { include_boc: true, address: [address] };
    if (typeof seqno === "number") query.seqno = seqno.toString();
    const raw = await this.getJson("/api/v3/addressInformation", query);
    const balance = BigInt(raw.balance);
    const extraCurrencies = {};
    for (const currency of raw.extra_currencies || []) {
      extraCurrencies[currency.id] = BigInt(currency.amount);
    }
    const out = {
      status: raw.status,
      balance: balance.toString(),
      extraCurrencies,
      code: raw.code,
      data: raw.data,
      lastTransaction: parseInternalTransactionId({
        hash: raw.last_transaction_hash,
        lt: raw.last_transaction_lt
      })
    };
    if (raw.frozen_hash) {
      out.frozenHash = Base64ToHex(raw.frozen_hash) ?? void 0;
    }
    return out;
  }
  async getBalance(address, seqno) {
    return (await this.getAccountState(address, seqno)).balance;
  }
  async getAccountTransactions(request) {
    const accounts = request.address?.map(prepareAddress);
    let offset = request.offset ?? 0;
    let limit = request.limit ?? 10;
    if (limit > 100) {
      limit = 100;
    } else if (limit < 0) {
      limit = 0;
    }
    if (offset < 0) {
      offset = 0;
    }
    const response = await this.getJson("/api/v3/transactions", {
      account: accounts,
      limit,
      offset
    });
    return toTransactionsResponse(response);
  }
  async getTransactionsByHash(request) {
    const msgHash = "msgHash" in request ? padBase64(request.msgHash) : void 0;
    const bodyHash = "bodyHash" in request ? padBase64(request.bodyHash) : void 0;
    const response = await this.getJson("/api/v3/transactionsByMessage", {
      msg_hash: msgHash ? [msgHash] : void 0,
      body_hash: bodyHash ? [bodyHash] : void 0
    });
    return toTransactionsResponse(response);
  }
  async getPendingTransactions(request) {
    const accounts = "accounts" in request ? request.accounts?.map(prepareAddress) : void 0;
    const traceId = "traceId" in request ? request.traceId : void 0;
    const response = await this.getJson("/api/v3/pendingTransactions", {
      account: accounts,
      trace_id: traceId
    });
    return toTransactionsResponse(response);
  }
  async getTrace(request) {
    const inTraceId = request.traceId ? request.traceId[0] : void 0;
    const traceIdStr = inTraceId || "";
    const isHexId = isHex(traceIdStr);
    const traceId = isHexId ? traceIdStr : padBase64(Base64Normalize(traceIdStr).replace(/=/g, ""));
    const tryGetTrace = async (field) => {
      const response = await CallForSuccess(
        () => this.getJson("/api/v3/traces", { [field]: traceId }),
        void 0,
        void 0,
        // 422: toncenter failed to decode field value
        (err) => err instanceof TonClientError ? err.status !== 422 : true
      );
      if (response?.traces?.length > 0) {
        return response;
      }
      throw new Error(`No traces found for ${field}`);
    };
    const results = await Promise.allSettled([
      tryGetTrace("tx_hash"),
      tryGetTrace("trace_id"),
      tryGetTrace("msg_hash")
    ]);
    const fulfilledResult = results.find((result) => result.status === "fulfilled");
    if (fulfilledResult) {
      return fulfilledResult.value;
    }
    results.forEach((result) => {
      if (result.status === "rejected") {
        log4.error("Error fetching trace", { error: result.reason });
      }
    });
    throw new Error("Failed to fetch trace");
  }
  async getPendingTrace(request) {
    try {
      const response = await CallForSuccess(
        () => {
          return this.getJson("/api/v3/pendingTraces", {
            ext_msg_hash: request.externalMessageHash
          });
        },
        void 0,
        void 0,
        // 422: toncenter failed to decode field value
        (err) => err instanceof TonClientError ? err.status !== 422 : true
      );
      if (response?.traces?.length > 0) {
        return response;
      }
    } catch (error) {
      log4.error("Error fetching pending trace", { error });
    }
    throw new Error("Failed to fetch pending trace");
  }
  async resolveDnsWallet(domain) {
    const response = toDnsRecords(
      await this.getJson("/api/v3/dns/records", {
        domain,
        limit: 1,
        offset: 0
      })
    );
    if (response.records.length > 0 && response.records[0].dnsWallet) {
      return response.records[0].dnsWallet;
    }
    return void 0;
  }
  async backResolveDnsWallet(wallet) {
    if (wallet instanceof Address8) {
      wallet = wallet.toString();
    }
    const response = toDnsRecords(
      await this.getJson("/api/v3/dns/records", {
        wallet,
        limit: 1,
        offset: 0
      })
    );
    if (response.records.length > 0) {
      return response.records[0].domain;
    }
    return void 0;
  }
  async jettonsByAddress(request) {
    return this.getJson("/api/v3/jetton/masters", {
      address: request.address,
      offset: request.offset,
      limit: request.limit
    });
  }
  async jettonsByOwnerAddress(request) {
    const offset = request.offset ?? 0;
    const limit = request.limit ?? 50;
    const rawResponse = await this.getJson("/api/v3/jetton/wallets", {
      owner_address: request.ownerAddress,
      offset,
      limit
    });
    return this.mapToResponseUserJettons(rawResponse);
  }
  mapToResponseUserJettons(rawResponse) {
    const verifiedJettonsMasters = /* @__PURE__ */ new Set([
      "0:B113A994B5024A16719F69139328EB759596C38A25F59028B146FECDC3621DFE"
    ]);
    const userJettons = rawResponse.jetton_wallets.map((wallet) => {
      const jettonInfo = this.extractJettonInfoFromMetadata(wallet.jetton, rawResponse.metadata);
      const jetton = {
        address: asAddressFriendly(wallet.jetton),
        walletAddress: asAddressFriendly(wallet.address),
        balance: wallet.balance,
        info: {
          name: jettonInfo.name,
          description: jettonInfo.description,
          image: {
            url: jettonInfo.image,
            data: jettonInfo.image_data
          },
          symbol: jettonInfo.symbol
        },
        decimalsNumber: jettonInfo.decimals,
        // For future use, currently prices are not provided by toncenter
        prices: [
          {
            value: "0",
            currency: "USD"
          }
        ],
        isVerified: verifiedJettonsMasters.has(wallet.jetton)
        // ????
        // extra: rawResponse.metadata[wallet.jetton]?.token_info,
      };
      return jetton;
    });
    return {
      jettons: userJettons,
      addressBook: {}
    };
  }
  extractJettonInfoFromMetadata(jettonAddress, metadata) {
    const jettonMetadata = metadata[jettonAddress];
    const metadataJettonInfo = jettonMetadata?.token_info?.find(
      (info) => typeof info === "object" && info !== null && "type" in info && info.type === "jetton_masters"
    );
    if (metadataJettonInfo) {
      const decimals = typeof metadataJettonInfo.extra.decimals === "string" ? parseInt(metadataJettonInfo.extra.decimals, 10) : metadataJettonInfo.extra.decimals;
      return {
        address: jettonAddress,
        name: metadataJettonInfo.name ?? "",
        symbol: metadataJettonInfo.symbol ?? "",
        description: metadataJettonInfo.description ?? "",
        decimals,
        image: metadataJettonInfo.image,
        image_data: metadataJettonInfo.extra.image_data,
        uri: metadataJettonInfo.extra.uri
      };
    }
    return {
      address: jettonAddress,
      name: "",
      symbol: "",
      description: "",
      decimals: 9
    };
  }
  async getEvents(request) {
    const account = request.account instanceof Address8 ? request.account.toString() : request.account;
    const limit = request.limit ?? 20;
    const offset = request.offset ?? 0;
    const query = {
      account,
      limit,
      offset
    };
    const list = await this.getJson("/api/v3/traces", query);
    const out = { events: [], limit, offset, hasNext: list.traces.length >= limit };
    const addressBook = toAddressBook2(list);
    for (const trace of list.traces) {
      out.events.push(toEvent(trace, account, addressBook));
    }
    return out;
  }
  async getMasterchainInfo() {
    const raw = await this.getJson("/api/v3/masterchainInfo");
    return {
      workchain: raw.last.workchain,
      seqno: raw.last.seqno,
      shard: raw.last.shard,
      fileHash: Base64ToHex(raw.last.file_hash),
      rootHash: Base64ToHex(raw.last.root_hash)
    };
  }
};
export {
  ApiClientToncenter,
  TonCenterStreamingProvider,
  getTransactionStatus
};
