//! The one module that calls libwebp (C, built from the sources `libwebp-sys` bundles): its
//! lossless encoder for still images and its `WebPAnimEncoder` for animations. Every call is
//! wrapped here in a safe function over Rust slices and owned buffers, with a `SAFETY` note;
//! the rest of the WebP target is safe code. With `src/sys.rs` and `src/replay/link/sys.rs`,
//! the only files with unsafe code (Cargo.toml's lint note names them).
//!
//! libwebp is built without threads (no `std` feature of `libwebp-sys`) and every config sets
//! `thread_level = 0`: the encoder runs on the calling thread only, so its CPU time is the
//! image's (`image::thread_cpu_time`), and the same input gives the same bytes.
#![allow(unsafe_code)]

use std::ffi::{c_int, c_void, CStr};
use std::ptr::NonNull;

use libwebp_sys as sys;

/// How libwebp compresses: always lossless.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Settings {
    /// libwebp's lossless preset (`cwebp -z`), 0 (fastest) to 9 (smallest): it sets the
    /// method and the "quality" (how hard the entropy coder searches).
    pub level: u8,
    /// Keep the colour of fully transparent pixels (`cwebp -exact`). Off, libwebp may change
    /// it, which compresses better; the pixels stay fully transparent, which is all a browser
    /// shows and all the verification compares.
    pub exact: bool,
}

fn config(settings: Settings) -> Result<sys::WebPConfig, String> {
    let mut config = std::mem::MaybeUninit::<sys::WebPConfig>::uninit();
    // SAFETY: `WebPConfigInitInternal` fills every field of the struct it is given (it returns
    // 0, leaving it unusable, only on an ABI version mismatch, which is checked).
    let config = unsafe {
        if sys::WebPConfigInitInternal(
            config.as_mut_ptr(),
            sys::WebPPreset::WEBP_PRESET_DEFAULT,
            75.0,
            sys::WEBP_ENCODER_ABI_VERSION as c_int,
        ) == 0
        {
            return Err("libwebp: encoder ABI version mismatch".to_string());
        }
        config.assume_init()
    };
    let mut config = config;
    // SAFETY: `config` is an initialised config; the call only writes to it.
    if unsafe { sys::WebPConfigLosslessPreset(&mut config, c_int::from(settings.level.min(9))) }
        == 0
    {
        return Err(format!("libwebp: no lossless level {}", settings.level));
    }
    config.exact = c_int::from(settings.exact);
    config.thread_level = 0;
    // SAFETY: `config` is initialised; the call only reads it.
    if unsafe { sys::WebPValidateConfig(&config) } == 0 {
        return Err("libwebp: invalid configuration".to_string());
    }
    Ok(config)
}

/// A `WebPPicture` holding a copy of RGBA pixels, freed on drop.
struct Picture(sys::WebPPicture);

impl Picture {
    fn import(rgba: &[u8], width: u32, height: u32) -> Result<Picture, String> {
        let (w, h) = (
            c_int::try_from(width).map_err(|_| "image too wide for WebP")?,
            c_int::try_from(height).map_err(|_| "image too tall for WebP")?,
        );
        let stride = w.checked_mul(4).ok_or("image too wide for WebP")?;
        if rgba.len() != width as usize * height as usize * 4 {
            return Err(format!(
                "{} bytes of pixels for a {width}×{height} RGBA image",
                rgba.len()
            ));
        }
        let mut picture = std::mem::MaybeUninit::<sys::WebPPicture>::uninit();
        // SAFETY: `WebPPictureInitInternal` zeroes and fills the whole struct (0 only on an ABI
        // version mismatch, checked).
        let mut picture = unsafe {
            if sys::WebPPictureInitInternal(
                picture.as_mut_ptr(),
                sys::WEBP_ENCODER_ABI_VERSION as c_int,
            ) == 0
            {
                return Err("libwebp: encoder ABI version mismatch".to_string());
            }
            Picture(picture.assume_init())
        };
        picture.0.use_argb = 1;
        picture.0.width = w;
        picture.0.height = h;
        // SAFETY: `rgba` holds exactly `height` rows of `stride` bytes (checked above) and
        // outlives the call; libwebp copies them into memory the picture owns.
        if unsafe { sys::WebPPictureImportRGBA(&mut picture.0, rgba.as_ptr(), stride) } == 0 {
            return Err(format!(
                "libwebp could not import the pixels: {:?}",
                picture.0.error_code
            ));
        }
        Ok(picture)
    }
}

impl Drop for Picture {
    fn drop(&mut self) {
        // SAFETY: the picture was initialised by `WebPPictureInitInternal`; freeing releases
        // what libwebp allocated for it (nothing, if the import failed) and is done once.
        unsafe { sys::WebPPictureFree(&mut self.0) }
    }
}

/// One still image, lossless (a `RIFF … WEBP VP8L` file).
pub(super) fn encode_still(
    rgba: &[u8],
    width: u32,
    height: u32,
    settings: Settings,
) -> Result<Vec<u8>, String> {
    let config = config(settings)?;
    let mut picture = Picture::import(rgba, width, height)?;
    let mut writer = std::mem::MaybeUninit::<sys::WebPMemoryWriter>::uninit();
    // SAFETY: `WebPMemoryWriterInit` initialises every field of the writer.
    let mut writer = unsafe {
        sys::WebPMemoryWriterInit(writer.as_mut_ptr());
        writer.assume_init()
    };
    picture.0.writer = Some(sys::WebPMemoryWrite);
    picture.0.custom_ptr = (&mut writer as *mut sys::WebPMemoryWriter).cast::<c_void>();
    // SAFETY: `config` is validated; `picture` holds the imported pixels, and its writer is
    // libwebp's own memory writer whose state (`writer`) lives across the call.
    let ok = unsafe { sys::WebPEncode(&config, &mut picture.0) } != 0;
    let out = if ok && !writer.mem.is_null() {
        // SAFETY: after a successful encode, `writer.mem` points at `writer.size` bytes that
        // libwebp wrote and still owns; they are copied before the writer is cleared.
        Ok(unsafe { std::slice::from_raw_parts(writer.mem, writer.size) }.to_vec())
    } else {
        Err(format!("libwebp: {:?}", picture.0.error_code))
    };
    // SAFETY: frees the writer's buffer (allocated by libwebp), once.
    unsafe { sys::WebPMemoryWriterClear(&mut writer) };
    out
}

/// An animation being encoded by libwebp's `WebPAnimEncoder`, which cuts each frame down to
/// what changed and chooses each frame's blend and dispose methods.
pub(super) struct Animation {
    encoder: NonNull<sys::WebPAnimEncoder>,
    config: sys::WebPConfig,
    width: u32,
    height: u32,
}

impl Animation {
    /// `minimize_size`: libwebp tries every dispose/blend choice and both candidate
    /// rectangles for each frame and keeps the smallest (slower); it also turns off
    /// key-frame insertion, as every frame is then chosen for size. `loop_count`: how many
    /// times the animation plays, 0 for forever.
    pub fn new(
        width: u32,
        height: u32,
        settings: Settings,
        minimize_size: bool,
        loop_count: u16,
    ) -> Result<Animation, String> {
        let config = config(settings)?;
        let mut options = std::mem::MaybeUninit::<sys::WebPAnimEncoderOptions>::uninit();
        // SAFETY: the init function fills every field of the options (0 only on an ABI version
        // mismatch, checked).
        let mut options = unsafe {
            if sys::WebPAnimEncoderOptionsInitInternal(
                options.as_mut_ptr(),
                sys::WEBP_MUX_ABI_VERSION as c_int,
            ) == 0
            {
                return Err("libwebp: mux ABI version mismatch".to_string());
            }
            options.assume_init()
        };
        // A transparent background, as browsers start an animation's canvas.
        options.anim_params.bgcolor = 0;
        options.anim_params.loop_count = c_int::from(loop_count);
        options.minimize_size = c_int::from(minimize_size);
        options.allow_mixed = 0;
        options.verbose = 0;
        let (w, h) = (
            c_int::try_from(width).map_err(|_| "image too wide for WebP")?,
            c_int::try_from(height).map_err(|_| "image too tall for WebP")?,
        );
        // SAFETY: the options are initialised and only read during the call.
        let encoder = unsafe {
            sys::WebPAnimEncoderNewInternal(w, h, &options, sys::WEBP_MUX_ABI_VERSION as c_int)
        };
        let encoder = NonNull::new(encoder)
            .ok_or_else(|| format!("libwebp refused a {width}×{height} animation"))?;
        Ok(Animation {
            encoder,
            config,
            width,
            height,
        })
    }

    /// Adds the next frame (the whole canvas as RGBA), shown from `timestamp_ms` on.
    pub fn add(&mut self, rgba: &[u8], timestamp_ms: i32) -> Result<(), String> {
        let mut picture = Picture::import(rgba, self.width, self.height)?;
        // SAFETY: the encoder is live (owned by `self`), the picture holds the canvas's pixels
        // (libwebp copies what it keeps) and the config is validated.
        let ok = unsafe {
            sys::WebPAnimEncoderAdd(
                self.encoder.as_ptr(),
                &mut picture.0,
                timestamp_ms,
                &self.config,
            )
        };
        if ok == 0 {
            return Err(self.error());
        }
        Ok(())
    }

    /// Ends the last frame at `end_ms` and returns the assembled WebP file.
    pub fn finish(self, end_ms: i32) -> Result<Vec<u8>, String> {
        // SAFETY: a null frame marks the end of the animation; the encoder is live.
        let ok = unsafe {
            sys::WebPAnimEncoderAdd(
                self.encoder.as_ptr(),
                std::ptr::null_mut(),
                end_ms,
                std::ptr::null(),
            )
        };
        if ok == 0 {
            return Err(self.error());
        }
        let mut data = sys::WebPData::default();
        // SAFETY: the encoder is live; on success `data` points at a buffer libwebp allocated,
        // which is copied and then freed with `WebPFree`, once.
        unsafe {
            if sys::WebPAnimEncoderAssemble(self.encoder.as_ptr(), &mut data) == 0 {
                return Err(self.error());
            }
            let out = std::slice::from_raw_parts(data.bytes, data.size).to_vec();
            sys::WebPFree(data.bytes as *mut c_void);
            Ok(out)
        }
    }

    fn error(&self) -> String {
        // SAFETY: the encoder is live; it returns a pointer to a NUL-terminated message it
        // owns (or null), valid until the next call on the encoder; it is copied at once.
        let message = unsafe { sys::WebPAnimEncoderGetError(self.encoder.as_ptr()) };
        if message.is_null() {
            return "libwebp: the animation encoder failed".to_string();
        }
        // SAFETY: non-null and NUL-terminated (see above).
        let text = unsafe { CStr::from_ptr(message) }.to_string_lossy();
        format!("libwebp: {text}")
    }
}

impl Drop for Animation {
    fn drop(&mut self) {
        // SAFETY: the encoder was created by `WebPAnimEncoderNewInternal` and is deleted once.
        unsafe { sys::WebPAnimEncoderDelete(self.encoder.as_ptr()) }
    }
}
