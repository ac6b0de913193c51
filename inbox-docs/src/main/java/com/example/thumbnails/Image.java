package com.example.thumbnails;

/** A thumbnail job's payload: the image to shrink. */
public record Image(String path) {}
