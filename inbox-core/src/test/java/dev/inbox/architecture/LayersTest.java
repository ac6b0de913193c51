package dev.inbox.architecture;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The engine's packages as its design draws them (docs/ENGINE.md): no package imports one above
 * it, and no two packages import each other. Checked on the classes of inbox-api and inbox-core.
 */
class LayersTest {
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.inbox");

    @Test
    void noPackageImportsAnotherThatImportsIt() {
        slices().matching("dev.inbox.(**)").should().beFreeOfCycles().check(CLASSES);
    }

    @Test
    void eachClaimFormStandsAlone() {
        slices().matching("dev.inbox.internal.form.(*)..").should().notDependOnEachOther().check(CLASSES);
    }

    @Test
    void eachLayerUsesOnlyThoseBelowIt() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("api").definedBy("dev.inbox", "dev.inbox.spi")
                .layer("dialects").definedBy("dev.inbox.dialect")
                .layer("jdbc").definedBy("dev.inbox.internal.jdbc")
                .layer("tasks").definedBy("dev.inbox.internal.task")
                .layer("forms").definedBy("dev.inbox.internal.form")
                .layer("each form").definedBy("dev.inbox.internal.form.lease", "dev.inbox.internal.form.rowlock",
                        "dev.inbox.internal.form.advisory")
                .layer("runner").definedBy("dev.inbox.internal.runner")
                .layer("broker").definedBy("dev.inbox.internal.broker")
                .layer("facade").definedBy("dev.inbox.engine")
                .whereLayer("facade").mayNotBeAccessedByAnyLayer()
                .whereLayer("broker").mayOnlyBeAccessedByLayers("facade")
                .whereLayer("runner").mayOnlyBeAccessedByLayers("broker")
                .whereLayer("each form").mayOnlyBeAccessedByLayers("broker")
                .whereLayer("forms").mayOnlyBeAccessedByLayers("each form", "runner", "broker")
                .whereLayer("tasks").mayOnlyBeAccessedByLayers("forms", "each form", "runner", "broker", "facade")
                .whereLayer("jdbc").mayOnlyBeAccessedByLayers("forms", "each form", "runner", "broker")
                .whereLayer("dialects").mayOnlyBeAccessedByLayers("jdbc", "broker")
                .check(CLASSES);
    }
}
