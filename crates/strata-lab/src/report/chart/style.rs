//! The charts' embedded font and presenting a drawing.

use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

pub(crate) static FONT: &[u8] = include_bytes!("../../../assets/DejaVuSans.ttf");

pub(crate) static REGISTER: Once = Once::new();

pub(crate) fn register_font() {
    REGISTER.call_once(|| {
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

pub(crate) fn present<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    root.present().map_err(|e| anyhow::anyhow!("{e:?}"))
}
