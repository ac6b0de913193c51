package dev.inbox.cdi;

import jakarta.enterprise.inject.spi.AnnotatedMethod;
import jakarta.enterprise.inject.spi.AnnotatedParameter;
import jakarta.enterprise.inject.spi.AnnotatedType;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/** A method as CDI's {@link AnnotatedMethod} presents it, read by reflection, for checking handler declarations. */
final class ReflectedMethod<X> implements AnnotatedMethod<X> {
    private final Method method;

    ReflectedMethod(Method method) {
        this.method = method;
    }

    static <X> ReflectedMethod<X> of(Class<X> type, String name) {
        return new ReflectedMethod<>(Arrays.stream(type.getDeclaredMethods()).filter(m -> m.getName().equals(name))
                .findFirst().orElseThrow());
    }

    @Override
    public Method getJavaMember() {
        return method;
    }

    @Override
    public List<AnnotatedParameter<X>> getParameters() {
        List<AnnotatedParameter<X>> parameters = new ArrayList<>();
        for (int i = 0; i < method.getParameterCount(); i++) {
            int position = i;
            parameters.add(new AnnotatedParameter<>() {
                @Override
                public int getPosition() {
                    return position;
                }

                @Override
                public jakarta.enterprise.inject.spi.AnnotatedCallable<X> getDeclaringCallable() {
                    return ReflectedMethod.this;
                }

                @Override
                public Type getBaseType() {
                    return method.getGenericParameterTypes()[position];
                }

                @Override
                public Set<Type> getTypeClosure() {
                    return Set.of(getBaseType());
                }

                @Override
                public <T extends Annotation> T getAnnotation(Class<T> type) {
                    return method.getParameters()[position].getAnnotation(type);
                }

                @Override
                public <T extends Annotation> Set<T> getAnnotations(Class<T> type) {
                    T one = getAnnotation(type);
                    return one == null ? Set.of() : Set.of(one);
                }

                @Override
                public Set<Annotation> getAnnotations() {
                    return Set.of(method.getParameters()[position].getAnnotations());
                }

                @Override
                public boolean isAnnotationPresent(Class<? extends Annotation> type) {
                    return getAnnotation(type) != null;
                }
            });
        }
        return parameters;
    }

    @Override
    public boolean isStatic() {
        return java.lang.reflect.Modifier.isStatic(method.getModifiers());
    }

    @Override
    @SuppressWarnings("unchecked")
    public AnnotatedType<X> getDeclaringType() {
        return null;
    }

    @Override
    public Type getBaseType() {
        return method.getGenericReturnType();
    }

    @Override
    public Set<Type> getTypeClosure() {
        return Set.of(getBaseType());
    }

    @Override
    public <T extends Annotation> T getAnnotation(Class<T> type) {
        return method.getAnnotation(type);
    }

    @Override
    public <T extends Annotation> Set<T> getAnnotations(Class<T> type) {
        T one = getAnnotation(type);
        return one == null ? Set.of() : Set.of(one);
    }

    @Override
    public Set<Annotation> getAnnotations() {
        return Set.of(method.getAnnotations());
    }

    @Override
    public boolean isAnnotationPresent(Class<? extends Annotation> type) {
        return method.isAnnotationPresent(type);
    }
}
