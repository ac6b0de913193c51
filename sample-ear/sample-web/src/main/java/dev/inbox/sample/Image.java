package dev.inbox.sample;

/** An image to make a thumbnail of. */
public record Image(String path) {}
