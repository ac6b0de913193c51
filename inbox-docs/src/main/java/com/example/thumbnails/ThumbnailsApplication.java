package com.example.thumbnails;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The REST endpoints under /api. */
@ApplicationPath("api")
public class ThumbnailsApplication extends Application {}
