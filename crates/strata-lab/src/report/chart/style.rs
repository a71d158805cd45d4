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

/// Draws a chart twice, to `stem.svg` and `stem.png` of `size` pixels:
/// `$draw` runs with `$a` bound to each backend's drawing area and returns
/// an `anyhow::Result<()>`; the whole is one too.
macro_rules! render_svg_png {
    ($stem:expr, $size:expr, |$a:ident| $draw:expr) => {{
        $crate::report::chart::register_font();
        let svg = $stem.with_extension("svg");
        let $a = plotters::prelude::SVGBackend::new(&svg, $size).into_drawing_area();
        $draw?;
        $crate::report::chart::present(&$a)?;
        let (w, h): (u32, u32) = $size;
        let mut rgb = vec![0u8; w as usize * h as usize * 3];
        {
            let $a =
                plotters::prelude::BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
            $draw?;
            $crate::report::chart::present(&$a)?;
        }
        $crate::report::chart::write_png(&$stem.with_extension("png"), &rgb, (w, h))
    }};
}
pub(crate) use render_svg_png;

/// Writes an RGB image as a PNG at the encoder's best compression (a
/// chart is mostly flat colour: several times smaller than plotters' own
/// writer, which uses the fastest setting).
pub(crate) fn write_png(
    path: &std::path::Path,
    rgb: &[u8],
    (w, h): (u32, u32),
) -> anyhow::Result<()> {
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    use image::ImageEncoder;
    let file =
        std::fs::File::create(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    PngEncoder::new_with_quality(
        std::io::BufWriter::new(file),
        CompressionType::Best,
        FilterType::Adaptive,
    )
    .write_image(rgb, w, h, image::ColorType::Rgb8)
    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// Draws the series labels of an inline chart (the search and capacity
/// charts): a boxed list on a nearly opaque white ground at `position`.
pub(crate) fn draw_series_labels<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    ch: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    ch.configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(position)
        .draw()
        .map_err(|e| anyhow::anyhow!("{e:?}"))
}
