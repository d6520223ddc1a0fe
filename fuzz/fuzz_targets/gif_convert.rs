//! Any bytes given to the GIF converter: it never panics, a conversion it offers shows the same
//! frames as the GIF (verified again here), and `facts` never panics either.
#![no_main]

use libfuzzer_sys::fuzz_target;
use webdiet::image::{self, verify, Effort, ImageOptions, Limits, Outcome};

fuzz_target!(|data: &[u8]| {
    // Small limits keep each run fast; the code paths are the same as with the defaults.
    let limits = Limits {
        max_canvas_pixels: 1 << 16,
        max_total_pixels: 1 << 20,
        max_frames: 64,
    };
    let opts = ImageOptions {
        effort: Effort::Fast,
        min_saving: 0,
        limits,
        ..ImageOptions::default()
    };
    let c = image::convert_gif(data, &opts);
    if let Some(png) = &c.png {
        assert_eq!(c.outcome, Outcome::Converted);
        verify::same_image(data, png, &limits).expect("a converted GIF verifies again");
    }
    let _ = image::facts(data);
});
