//! `From` conversions to and from glam and mint types (features `glam`, `mint`).
//!
//! With neither feature enabled this module is empty.

#[cfg(feature = "glam")]
mod glam_impls {
    use crate::math::Vec3;
    impl From<glam::Vec3> for Vec3 {
        fn from(v: glam::Vec3) -> Self {
            Vec3::new(v.x, v.y, v.z)
        }
    }
    impl From<Vec3> for glam::Vec3 {
        fn from(v: Vec3) -> Self {
            glam::Vec3::new(v.x, v.y, v.z)
        }
    }
    impl From<glam::Vec3A> for Vec3 {
        fn from(v: glam::Vec3A) -> Self {
            Vec3::new(v.x, v.y, v.z)
        }
    }
    impl From<Vec3> for glam::Vec3A {
        fn from(v: Vec3) -> Self {
            glam::Vec3A::new(v.x, v.y, v.z)
        }
    }
}

#[cfg(feature = "mint")]
mod mint_impls {
    use crate::math::Vec3;
    impl From<mint::Vector3<f32>> for Vec3 {
        fn from(v: mint::Vector3<f32>) -> Self {
            Vec3::new(v.x, v.y, v.z)
        }
    }
    impl From<Vec3> for mint::Vector3<f32> {
        fn from(v: Vec3) -> Self {
            mint::Vector3 { x: v.x, y: v.y, z: v.z }
        }
    }
    impl From<mint::Point3<f32>> for Vec3 {
        fn from(v: mint::Point3<f32>) -> Self {
            Vec3::new(v.x, v.y, v.z)
        }
    }
    impl From<Vec3> for mint::Point3<f32> {
        fn from(v: Vec3) -> Self {
            mint::Point3 { x: v.x, y: v.y, z: v.z }
        }
    }
}

#[cfg(all(test, feature = "glam", feature = "mint"))]
mod tests {
    use crate::Vec3;
    #[test]
    fn round_trips() {
        let v = Vec3::new(1.0, -2.0, 3.5);
        let g: glam::Vec3 = v.into();
        assert_eq!(Vec3::from(g), v);
        let m: mint::Vector3<f32> = v.into();
        assert_eq!(Vec3::from(m), v);
    }
}
