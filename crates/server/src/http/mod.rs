//! The node's HTTP side: its routes (`app`: `/api`, `/ws`, health, metrics, the web
//! app), its connections (`listener`), and the built web app's files (`web`). The API's
//! handlers are `api`. The guards every request passes and the security headers of every
//! answer are `guards`.

pub mod app;
pub mod guards;
pub mod listener;
pub mod web;
