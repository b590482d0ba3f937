// @ton/walletkit's Streaming API v2 client (TonCenterStreamingProvider and
// what it runs on), unchanged: ton-connect/kit packages/walletkit/src at
// commit ab6d00160908bc53b1e1a1f2b2ce6a2c62d3cece (walletkit 0.0.12-alpha.3),
// bundled from src/streaming/toncenter/index.ts by esbuild 0.25.12:
//   esbuild src/streaming/toncenter/index.ts --bundle --platform=node \
//     --format=esm --target=node20 --external:@ton/core \
//     --external:@ton/crypto --external:lru-cache --legal-comments=inline
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
function Base64Normalize(data) {
  return data.replace(/\s+/g, "").replace(/-/g, "+").replace(/_/g, "/");
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

// src/validation/address.ts
import { Address as Address5 } from "@ton/core";

// src/validation/transaction.ts
import { Cell as Cell5 } from "@ton/core";

// src/utils/getNormalizedExtMessageHash.ts
import { Cell as Cell6, beginCell as beginCell6, loadMessage, storeMessage } from "@ton/core";

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
var parseMsgSizeCount = (value) => {
  if (value === void 0) return void 0;
  const num = Number(value);
  if (!Number.isFinite(num)) return void 0;
  return Math.trunc(num);
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

// src/streaming/toncenter/factory.ts
var createTonCenterStreamingProvider = (config) => (ctx) => {
  return new TonCenterStreamingProvider(ctx, config);
};
export {
  TonCenterStreamingProvider,
  createTonCenterStreamingProvider
};
