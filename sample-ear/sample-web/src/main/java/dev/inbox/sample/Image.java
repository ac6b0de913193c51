package dev.inbox.sample;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

/** An image to make a thumbnail of. */
public record Image(@NotBlank @Size(max = 1000) String path) {}
