//! The one module that calls mozjpeg (C, built from the sources `mozjpeg-sys` bundles): its
//! lossless transcoding, what `jpegtran` does. The DCT coefficients are read from the file
//! and written again with new Huffman tables or a new scan script, never dequantised, so no
//! pixel can change. Every call is wrapped here in one safe function with `SAFETY` notes.
//!
//! libjpeg reports a fatal error by calling `error_exit`, which must not return: ours unwinds
//! (`resume_unwind`, so no panic message is printed) out through the C frames (`C-unwind`,
//! the `unwinding` feature of `mozjpeg-sys`), and [`transcode`] catches it, frees what libjpeg
//! allocated and returns the message. Warnings (corrupt data libjpeg would paper over) are
//! counted, and a file with any is refused.
#![allow(unsafe_code)]

use std::ffi::{c_int, c_uint, c_ulong};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use mozjpeg_sys as sys;

/// How the coefficients are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Script {
    /// One scan per component group, Huffman tables made for this image (`jpegtran
    /// -optimize`, libjpeg-turbo's).
    Baseline,
    /// libjpeg's standard progressive script with optimised tables (`jpegtran -optimize
    /// -progressive`, libjpeg-turbo's).
    Progressive,
    /// mozjpeg's progressive script, chosen per image among several (`jpegtran` of mozjpeg,
    /// its default).
    MozjpegScans,
}

/// A marker to copy into the new file, in order: its code (`0xE1` for APP1…) and data.
pub(super) struct Marker<'a> {
    pub code: u8,
    pub data: &'a [u8],
}

/// What libjpeg was told while it worked.
struct Errors {
    warnings: c_int,
}

unsafe extern "C-unwind" fn error_exit(cinfo: &mut sys::jpeg_common_struct) {
    // SAFETY: libjpeg calls this with the struct whose `err` we set; `format_message` writes
    // at most JMSG_LENGTH_MAX (200) bytes, NUL-terminated, into the buffer given.
    let message = unsafe {
        let mut buffer = [0u8; 200];
        if let Some(format) = (*cinfo.err).format_message {
            format(cinfo, &*(buffer.as_mut_ptr() as *const [u8; 80]));
        }
        let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
        String::from_utf8_lossy(&buffer[..end]).into_owned()
    };
    resume_unwind(Box::new(message));
}

unsafe extern "C-unwind" fn emit_message(cinfo: &mut sys::jpeg_common_struct, level: c_int) {
    if level < 0 {
        // SAFETY: `client_data` is the `Errors` that `transcode` set and outlives the call.
        unsafe {
            let errors = cinfo.client_data as *mut Errors;
            (*errors).warnings += 1;
        }
    }
}

/// Transcodes `jpeg` with `script`, writing `markers` after the ones libjpeg writes itself
/// (JFIF when `jfif`, Adobe for RGB/CMYK). `Err` with libjpeg's message on any error or warning.
pub(super) fn transcode(
    jpeg: &[u8],
    script: Script,
    jfif: bool,
    markers: &[Marker<'_>],
) -> Result<Vec<u8>, String> {
    let mut errors = Errors { warnings: 0 };
    // SAFETY: zeroed structs are what libjpeg's `jpeg_create_*` expect to fill in; the error
    // manager is initialised by `jpeg_std_error` before use and outlives both structs.
    let mut err: sys::jpeg_error_mgr = unsafe { std::mem::zeroed() };
    let mut src: sys::jpeg_decompress_struct = unsafe { std::mem::zeroed() };
    let mut dst: sys::jpeg_compress_struct = unsafe { std::mem::zeroed() };
    let mut out_ptr: *mut u8 = std::ptr::null_mut();
    let mut out_len: c_ulong = 0;
    let mut created = (false, false);
    let result = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the sequence below is jpegtran's (transupp-free): create, read the header
        // and coefficients, copy the critical parameters, write the coefficients and the
        // markers, finish. Every pointer given to libjpeg (input slice, error manager, output
        // pointer and length, marker data) outlives the call that uses it; `jpeg_mem_src`
        // only reads `jpeg`.
        unsafe {
            sys::jpeg_std_error(&mut err);
            err.error_exit = Some(error_exit);
            err.emit_message = Some(emit_message);
            src.common.err = &mut err;
            src.common.client_data = (&mut errors as *mut Errors).cast();
            sys::jpeg_create_decompress(&mut src);
            created.0 = true;
            dst.common.err = &mut err;
            dst.common.client_data = (&mut errors as *mut Errors).cast();
            sys::jpeg_create_compress(&mut dst);
            created.1 = true;
            sys::jpeg_mem_src(&mut src, jpeg.as_ptr(), jpeg.len() as c_ulong);
            sys::jpeg_read_header(&mut src, 1);
            let coefficients = sys::jpeg_read_coefficients(&mut src);
            let profile = match script {
                Script::MozjpegScans => sys::JCP_MAX_COMPRESSION,
                Script::Baseline | Script::Progressive => sys::JCP_FASTEST,
            };
            sys::jpeg_c_set_int_param(
                &mut dst,
                sys::J_INT_PARAM::JINT_COMPRESS_PROFILE,
                profile as c_int,
            );
            sys::jpeg_copy_critical_parameters(&src, &mut dst);
            dst.optimize_coding = 1;
            dst.write_JFIF_header = sys::boolean::from(jfif);
            match script {
                Script::Baseline => {}
                Script::Progressive => sys::jpeg_simple_progression(&mut dst),
                Script::MozjpegScans => {
                    sys::jpeg_c_set_bool_param(
                        &mut dst,
                        sys::J_BOOLEAN_PARAM::JBOOLEAN_OPTIMIZE_SCANS,
                        1,
                    );
                    sys::jpeg_simple_progression(&mut dst);
                }
            }
            sys::jpeg_mem_dest(&mut dst, &mut out_ptr, &mut out_len);
            sys::jpeg_write_coefficients(&mut dst, coefficients);
            for m in markers {
                sys::jpeg_write_marker(
                    &mut dst,
                    c_int::from(m.code),
                    m.data.as_ptr(),
                    m.data.len() as c_uint,
                );
            }
            sys::jpeg_finish_compress(&mut dst);
            sys::jpeg_finish_decompress(&mut src);
        }
    }));
    // SAFETY: each struct is destroyed once, only if it was created; `out_ptr` was allocated
    // by libjpeg with malloc (or is null) and is freed once, after its bytes are copied.
    let bytes = unsafe {
        if created.1 {
            sys::jpeg_destroy_compress(&mut dst);
        }
        if created.0 {
            sys::jpeg_destroy_decompress(&mut src);
        }
        let bytes = (!out_ptr.is_null() && result.is_ok())
            .then(|| std::slice::from_raw_parts(out_ptr, out_len as usize).to_vec());
        if !out_ptr.is_null() {
            libc::free(out_ptr.cast());
        }
        bytes
    };
    match result {
        Err(payload) => Err(match payload.downcast::<String>() {
            Ok(message) => format!("libjpeg: {message}"),
            Err(_) => "libjpeg stopped".to_string(),
        }),
        Ok(()) if errors.warnings > 0 => Err(format!(
            "libjpeg found {} problem{} in the data",
            errors.warnings,
            if errors.warnings == 1 { "" } else { "s" }
        )),
        Ok(()) => bytes.ok_or_else(|| "libjpeg wrote nothing".to_string()),
    }
}

/// A plain JPEG of `samples` (grey or RGB, 8 bits) at quality 85, as an old camera or editor
/// writes it: baseline, the standard Huffman tables, and `markers` after SOI/JFIF. For test
/// fixtures: every fixture is made by our own code.
pub(super) fn encode_plain(
    samples: &[u8],
    width: u32,
    height: u32,
    components: u8,
    jfif: bool,
    markers: &[Marker<'_>],
) -> Vec<u8> {
    let mut errors = Errors { warnings: 0 };
    let mut out_ptr: *mut u8 = std::ptr::null_mut();
    let mut out_len: c_ulong = 0;
    // SAFETY: libjpeg's usual compress sequence on zeroed structs (see `transcode`); every
    // pointer outlives the call using it. The caller checks the sizes (`plain_jpeg`), so
    // libjpeg has no error to raise on this input.
    unsafe {
        let mut err: sys::jpeg_error_mgr = std::mem::zeroed();
        let mut dst: sys::jpeg_compress_struct = std::mem::zeroed();
        sys::jpeg_std_error(&mut err);
        err.error_exit = Some(error_exit);
        err.emit_message = Some(emit_message);
        dst.common.err = &mut err;
        dst.common.client_data = (&mut errors as *mut Errors).cast();
        sys::jpeg_create_compress(&mut dst);
        sys::jpeg_c_set_int_param(
            &mut dst,
            sys::J_INT_PARAM::JINT_COMPRESS_PROFILE,
            sys::JCP_FASTEST as c_int,
        );
        dst.image_width = width;
        dst.image_height = height;
        dst.input_components = c_int::from(components);
        dst.in_color_space = if components == 1 {
            sys::J_COLOR_SPACE::JCS_GRAYSCALE
        } else {
            sys::J_COLOR_SPACE::JCS_RGB
        };
        sys::jpeg_set_defaults(&mut dst);
        sys::jpeg_set_quality(&mut dst, 85, 1);
        dst.optimize_coding = 0;
        dst.write_JFIF_header = sys::boolean::from(jfif);
        sys::jpeg_mem_dest(&mut dst, &mut out_ptr, &mut out_len);
        sys::jpeg_start_compress(&mut dst, 1);
        for m in markers {
            sys::jpeg_write_marker(
                &mut dst,
                c_int::from(m.code),
                m.data.as_ptr(),
                m.data.len() as c_uint,
            );
        }
        let stride = width as usize * usize::from(components);
        for row in samples.chunks_exact(stride) {
            let rows = [row.as_ptr()];
            sys::jpeg_write_scanlines(&mut dst, rows.as_ptr(), 1);
        }
        sys::jpeg_finish_compress(&mut dst);
        sys::jpeg_destroy_compress(&mut dst);
        let bytes = std::slice::from_raw_parts(out_ptr, out_len as usize).to_vec();
        libc::free(out_ptr.cast());
        bytes
    }
}
