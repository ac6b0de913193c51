package dev.inbox.sample;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

/** A report to render. */
public record Report(@NotBlank @Size(max = 200) String name) {}
