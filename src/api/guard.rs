//! What every request passes before its handler, as one tower layer: the
//! request is timed for `/metrics` from here (so that refusals are counted
//! too), its body is read whole within the limits, then keys and rates are
//! checked (a JSON-RPC batch's calls counted from its body).
//!
//! Written as a service rather than with `axum::middleware::from_fn`: a
//! request with no body and no key or rate to check (most of them) runs
//! the router's own future, timed, with nothing boxed, cloned or
//! extracted; that was most of what the guards cost on the smallest
//! requests. It wraps the whole router once ([`super::App`]) rather than
//! each route (`Router::layer`): a layered route is a second boxed route
//! per request, cloned, with its own response post-processing.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use axum::extract::{DefaultBodyLimit, Request};
use axum::response::Response;
use tower_layer::Layer;

use super::{limits, request_metrics, server};

/// The guards' settings.
pub struct Guards {
    pub body: server::BodyLimits,
    pub rates: Arc<limits::RateLimits>,
}

/// A service (the router) behind the guards; with none, the service
/// alone (`bench-serve`'s measure of what they cost).
#[derive(Clone)]
pub struct Guarded<S> {
    inner: S,
    guards: Option<Arc<Guards>>,
}

impl<S> Guarded<S> {
    pub fn new(inner: S, guards: Option<Guards>) -> Self {
        Self {
            inner,
            guards: guards.map(Arc::new),
        }
    }
}

impl<S> tower_service::Service<Request> for Guarded<S>
where
    S: tower_service::Service<Request, Response = Response, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
{
    type Response = Response;
    type Error = Infallible;
    type Future = GuardFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // The router is always ready.
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        let Some(guards) = &self.guards else {
            return GuardFuture::Direct {
                inner: self.inner.call(req),
                timer: None,
            };
        };
        let timer = request_metrics::Timer::start(&req);
        // Most requests have no body to read and no key or rate to check:
        // the router's own future, timed, with nothing boxed or cloned.
        let has_body = !axum::body::HttpBody::is_end_stream(req.body());
        if !has_body && guards.rates.is_open() {
            return GuardFuture::Direct {
                inner: self.inner.call(req),
                timer: Some(timer),
            };
        }
        // axum's own body limit off: the guard reads the body within
        // `serve.max_body_bytes`, which may be more than axum's default.
        let mut inner = DefaultBodyLimit::disable().layer(self.inner.clone());
        let guards = Arc::clone(guards);
        GuardFuture::Guarded {
            inner: Box::pin(async move {
                let admitted = match server::read_body(guards.body, req).await {
                    Ok(req) => limits::admit(&guards.rates, req).await,
                    Err(refused) => Err(refused),
                };
                let resp = match admitted {
                    Ok(req) => inner.call(req).await?,
                    Err(refused) => refused,
                };
                Ok(resp)
            }),
            timer: Some(timer),
        }
    }
}

pin_project_lite::pin_project! {
    /// A guarded request's answer, timed.
    #[project = GuardFutureProj]
    pub enum GuardFuture<F> {
        /// Nothing to check: the route's future itself.
        Direct { #[pin] inner: F, timer: Option<request_metrics::Timer> },
        /// Body read and keys and rates checked first.
        Guarded { inner: BoxFuture, timer: Option<request_metrics::Timer> },
    }
}

type BoxFuture = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

impl<F: Future<Output = Result<Response, Infallible>>> Future for GuardFuture<F> {
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let (resp, timer) = match self.project() {
            GuardFutureProj::Direct { inner, timer } => (ready!(inner.poll(cx)), timer),
            GuardFutureProj::Guarded { inner, timer } => (ready!(inner.as_mut().poll(cx)), timer),
        };
        let Ok(resp) = resp;
        Poll::Ready(Ok(match timer.take() {
            Some(timer) => timer.finish(resp),
            None => resp,
        }))
    }
}
