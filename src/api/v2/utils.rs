//! v2 Utility group (spec v2 §4.1): address and hash form conversions.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::Serialize;

use super::{required, AddressArgs, V2Error};
use crate::api::encoding::{b64, friendly, raw_lower, raw_upper, FriendlyFlags, ParsedAddress};
use crate::api::params::Params;
use crate::api::request::request;
use crate::api::Ctx;

fn address(q: &AddressArgs) -> Result<ParsedAddress, V2Error> {
    required(q.address, "address")
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct Variant {
    #[serde(rename = "@type")]
    ty: &'static str,
    b64: String,
    b64url: String,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct DetectedAddress {
    #[serde(rename = "@type")]
    ty: &'static str,
    raw_form: String,
    bounceable: Variant,
    non_bounceable: Variant,
    given_type: &'static str,
    test_only: bool,
}

pub fn detect_address(_: &Ctx<'_>, _: &Params, q: AddressArgs) -> Result<DetectedAddress, V2Error> {
    let parsed = address(&q)?;
    let test_only = parsed.friendly.is_some_and(|f| f.testnet);
    let variant = |bounceable| {
        let form = |url_safe| {
            friendly(
                &parsed.address,
                FriendlyFlags {
                    bounceable,
                    testnet: test_only,
                    url_safe,
                },
            )
        };
        Variant {
            ty: "ext.utils.detectedAddressVariant",
            b64: form(false),
            b64url: form(true),
        }
    };
    let given_type = match parsed.friendly {
        None => "raw_form",
        Some(f) if f.bounceable => "friendly_bounceable",
        Some(_) => "friendly_non_bounceable",
    };
    Ok(DetectedAddress {
        ty: "ext.utils.detectedAddress",
        raw_form: raw_lower(&parsed.address),
        bounceable: variant(true),
        non_bounceable: variant(false),
        given_type,
        test_only,
    })
}

request! {
    /// A hash in any form.
    pub struct HashRequest {
        /// The hash: 64 hex digits or base64
        [required] hash: Option<[u8; 32]>,
    }
}

/// The C++ server's `ext.utils.detectedHash`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct DetectedHash {
    #[serde(rename = "@type")]
    ty: &'static str,
    b64: String,
    b64url: String,
    hex: String,
}

pub fn detect_hash(_: &Ctx<'_>, _: &Params, q: HashRequest) -> Result<DetectedHash, V2Error> {
    let Some(hash) = q.hash else {
        return Err(V2Error::invalid("empty hash"));
    };
    Ok(DetectedHash {
        ty: "ext.utils.detectedHash",
        b64: b64(&hash),
        b64url: URL_SAFE_NO_PAD.encode(hash),
        hex: hex::encode(hash),
    })
}

/// Url-safe friendly form keeping the input's flags (raw input: bounceable, mainnet).
pub fn pack_address(_: &Ctx<'_>, _: &Params, q: AddressArgs) -> Result<String, V2Error> {
    let parsed = address(&q)?;
    let flags = parsed.friendly.unwrap_or(FriendlyFlags {
        bounceable: true,
        testnet: false,
        url_safe: true,
    });
    Ok(friendly(
        &parsed.address,
        FriendlyFlags {
            url_safe: true,
            ..flags
        },
    ))
}

pub fn unpack_address(_: &Ctx<'_>, _: &Params, q: AddressArgs) -> Result<String, V2Error> {
    Ok(raw_upper(&address(&q)?.address))
}
