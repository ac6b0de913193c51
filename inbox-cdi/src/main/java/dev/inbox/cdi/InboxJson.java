package dev.inbox.cdi;

import jakarta.enterprise.util.AnnotationLiteral;
import jakarta.inject.Qualifier;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the application's JSON mapper of its payloads: produce one {@code ObjectMapper} or one
 * {@code Jsonb}, never both, and Inbox writes and reads the application's payloads with it.
 * Without one, payloads go through Inbox's Jackson (java.time support, no default typing).
 * Headers are Inbox's own format and stay on Inbox's Jackson either way.
 *
 * <pre>{@code
 * @Produces @InboxJson @ApplicationScoped
 * Jsonb payloadJson() {
 *     return JsonbBuilder.create(new JsonbConfig().withPropertyNamingStrategy(LOWER_CASE_WITH_UNDERSCORES));
 * }
 * }</pre>
 *
 * <p>Never enable default typing on a produced {@code ObjectMapper}: payloads are decoded into the
 * handler's declared type only.
 */
@Qualifier
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD, ElementType.TYPE})
public @interface InboxJson {

    /** The qualifier as a value, to look the mapper up. */
    final class Literal extends AnnotationLiteral<InboxJson> implements InboxJson {
        private static final long serialVersionUID = 1L;
        public static final Literal INSTANCE = new Literal();
    }
}
