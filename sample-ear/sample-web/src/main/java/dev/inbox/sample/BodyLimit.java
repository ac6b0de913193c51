package dev.inbox.sample;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;

/**
 * Request bodies of at most {@link #LIMIT} bytes: a longer one is refused with 413, before it is
 * read when it says its length, else once the limit is passed while reading it.
 */
@Provider
public class BodyLimit implements ContainerRequestFilter, ReaderInterceptor {
    /** The sample's jobs are small: a mebibyte is plenty. */
    static final int LIMIT = 1 << 20;

    @Override
    public void filter(ContainerRequestContext request) {
        if (request.getLength() > LIMIT) {
            request.abortWith(tooLarge());
        }
    }

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        context.setInputStream(new Limited(context.getInputStream()));
        return context.proceed();
    }

    static Response tooLarge() {
        return Response.status(Response.Status.REQUEST_ENTITY_TOO_LARGE).type(MediaType.APPLICATION_JSON)
                .entity(Map.of("error", "the request body is larger than " + LIMIT + " bytes")).build();
    }

    /** Counts what is read, and stops the request past the limit. */
    private static final class Limited extends FilterInputStream {
        private long read;

        Limited(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            count(b < 0 ? 0 : 1);
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            count(Math.max(n, 0));
            return n;
        }

        private void count(int n) {
            read += n;
            if (read > LIMIT) {
                throw new WebApplicationException(tooLarge());
            }
        }
    }
}
