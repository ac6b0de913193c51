package com.example.thumbnails;

import jakarta.enterprise.context.ApplicationScoped;

/** The application's own work: here it accepts any image with a path. */
@ApplicationScoped
public class Resizer {
    public boolean resize(Image image) {
        return image.path() != null && !image.path().isBlank();
    }
}
